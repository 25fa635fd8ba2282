// Line icons in the style of SF Symbols (stroke 1.5, round caps), as inline SVG.

import type { ComponentChildren } from 'preact';

function Glyph({ children, label }: { children: ComponentChildren; label?: string | undefined }) {
  return (
    <svg viewBox="0 0 20 20" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round" aria-hidden={label ? undefined : 'true'} aria-label={label} role={label ? 'img' : undefined}>
      {children}
    </svg>
  );
}

export type IconProps = { label?: string };

export const Icon = {
  Logo: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M3.5 4.5h13L10 16.5z" />
      <circle cx="10" cy="8.6" r="1.2" fill="currentColor" stroke="none" />
    </Glyph>
  ),
  Tasks: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M7 5.5h9M7 10h9M7 14.5h9" />
      <path d="M3.5 5.5h.01M3.5 10h.01M3.5 14.5h.01" stroke-width="2.2" />
    </Glyph>
  ),
  Memory: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M10 3 3 7l7 4 7-4-7-4Z" />
      <path d="m3 10.5 7 4 7-4M3 14l7 4 7-4" />
    </Glyph>
  ),
  Audit: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M10 2.8 4 5.2v4.3c0 3.6 2.5 6.3 6 7.7 3.5-1.4 6-4.1 6-7.7V5.2z" />
      <path d="m7.3 10 1.9 1.9 3.6-3.8" />
    </Glyph>
  ),
  Settings: ({ label }: IconProps) => (
    <Glyph label={label}>
      <circle cx="10" cy="10" r="2.5" />
      <path d="M10 2.5v2M10 15.5v2M2.5 10h2M15.5 10h2M4.7 4.7l1.4 1.4M13.9 13.9l1.4 1.4M4.7 15.3l1.4-1.4M13.9 6.1l1.4-1.4" />
    </Glyph>
  ),
  Return: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M15.5 5v4.5a2 2 0 0 1-2 2h-9" />
      <path d="m7.5 8.5-3 3 3 3" />
    </Glyph>
  ),
  Stop: ({ label }: IconProps) => (
    <Glyph label={label}>
      <rect x="5" y="5" width="10" height="10" rx="2" />
    </Glyph>
  ),
  Warning: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M10 3.2 2.6 16h14.8z" />
      <path d="M10 8v3.8M10 13.9h.01" />
    </Glyph>
  ),
  Check: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="m4.5 10.5 3.5 3.5 7.5-8" />
    </Glyph>
  ),
  Cross: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="m5.5 5.5 9 9M14.5 5.5l-9 9" />
    </Glyph>
  ),
  Trash: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M4 6h12M8 6V4h4v2M5.5 6l.8 10h7.4l.8-10" />
    </Glyph>
  ),
  Pin: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="m12 3 5 5-3 1-3 3 .5 3.5L10 17l-7-7 1.5-1.5L8 9l3-3z" />
      <path d="m6.5 13.5-3.5 3.5" />
    </Glyph>
  ),
  Play: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M6.5 4.5v11l9-5.5z" />
    </Glyph>
  ),
  Pause: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M7 4.5v11M13 4.5v11" />
    </Glyph>
  ),
  First: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M5 4.5v11M15 4.5 8.5 10l6.5 5.5" />
    </Glyph>
  ),
  Last: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M15 4.5v11M5 4.5l6.5 5.5L5 15.5" />
    </Glyph>
  ),
  Prev: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M12.5 4.5 7 10l5.5 5.5" />
    </Glyph>
  ),
  Next: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M7.5 4.5 13 10l-5.5 5.5" />
    </Glyph>
  ),
  Plus: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M10 4v12M4 10h12" />
    </Glyph>
  ),
  Shield: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M10 2.8 4 5.2v4.3c0 3.6 2.5 6.3 6 7.7 3.5-1.4 6-4.1 6-7.7V5.2z" />
    </Glyph>
  ),
  Refresh: ({ label }: IconProps) => (
    <Glyph label={label}>
      <path d="M16 10a6 6 0 1 1-1.8-4.3M16 3.5v3.2h-3.2" />
    </Glyph>
  ),
  Key: ({ label }: IconProps) => (
    <Glyph label={label}>
      <circle cx="7" cy="12.5" r="3" />
      <path d="m9.2 10.3 6.3-6.3M13.5 6l2 2" />
    </Glyph>
  ),
};
