// The system colour scheme as a signal, and the palette read from the stylesheet, so
// canvas-drawn charts follow light and dark mode like the rest of the UI.

import { signal } from '@preact/signals';

function query(): MediaQueryList | null {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function'
    ? window.matchMedia('(prefers-color-scheme: dark)')
    : null;
}

export const darkMode = signal(query()?.matches ?? false);
query()?.addEventListener('change', (e) => {
  darkMode.value = e.matches;
});

/** A CSS custom property of :root (e.g. `--accent`), or `fallback` outside a browser. */
export function cssVar(name: string, fallback: string): string {
  if (typeof document === 'undefined') return fallback;
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value.length > 0 ? value : fallback;
}

export interface Palette {
  label: string;
  label2: string;
  separator: string;
  accent: string;
  red: string;
  orange: string;
  green: string;
  purple: string;
  gray: string;
  teal: string;
}

export function palette(dark: boolean): Palette {
  return {
    label: cssVar('--label', dark ? 'rgba(255,255,255,0.88)' : 'rgba(0,0,0,0.85)'),
    label2: cssVar('--label-2', dark ? 'rgba(255,255,255,0.55)' : 'rgba(0,0,0,0.55)'),
    separator: cssVar('--separator', dark ? 'rgba(255,255,255,0.12)' : 'rgba(0,0,0,0.1)'),
    accent: cssVar('--accent', dark ? '#0a84ff' : '#007aff'),
    red: cssVar('--red', dark ? '#ff453a' : '#ff3b30'),
    orange: cssVar('--orange', dark ? '#ff9f0a' : '#ff9500'),
    green: cssVar('--green', dark ? '#30d158' : '#28cd41'),
    purple: cssVar('--purple', '#af52de'),
    gray: cssVar('--gray', '#8e8e93'),
    teal: cssVar('--teal', '#30b0c7'),
  };
}

/** `color` (a hex colour) at `alpha` opacity. */
export function withAlpha(color: string, alpha: number): string {
  const hex = color.replace('#', '');
  if (!/^[0-9a-f]{6}$/i.test(hex)) return color;
  const n = Number.parseInt(hex, 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}
