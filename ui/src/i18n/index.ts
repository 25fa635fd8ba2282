// The UI's two languages. `locale` follows Settings.ui.language; views call t() during
// render, so switching the language re-renders every window at once.

import { effect, signal } from '@preact/signals';

import { en, type MessageKey, type Messages } from './en';
import { zhCN } from './zh-CN';

export type { MessageKey } from './en';

export type Locale = 'en' | 'zh-CN';

export const LOCALES: readonly { id: Locale; name: string }[] = [
  { id: 'en', name: 'English' },
  { id: 'zh-CN', name: '简体中文' },
];

const CATALOGUES: Record<Locale, Messages> = { en, 'zh-CN': zhCN };

export const locale = signal<Locale>('en');

// The document's language follows the setting, so screen readers pick the right voice.
effect(() => {
  if (typeof document !== 'undefined') document.documentElement.lang = locale.value;
});

export function asLocale(value: string | null | undefined): Locale {
  return value === 'zh-CN' ? 'zh-CN' : 'en';
}

/** The message for `key` in the current language, with `{name}` placeholders filled. */
export function t(key: MessageKey, params?: Record<string, string | number>): string {
  const template = CATALOGUES[locale.value][key];
  if (!params) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    return value === undefined ? whole : String(value);
  });
}

/** A counted message: `<base>.one` for exactly one, `<base>.other` otherwise. */
export function tn(base: 'result.replans' | 'result.law1.asked' | 'result.law1.granted' | 'audit.tasksCount' | 'undo.done' | 'effectGrants.used' | 'schedules.runs' | 'schedules.window.hours' | 'schedules.window.days', count: number, params: Record<string, string | number> = {}): string {
  return t(count === 1 ? `${base}.one` : `${base}.other`, { ...params, count });
}

/** Every language's catalogue (tests check that they agree on placeholders). */
export function catalogue(l: Locale): Messages {
  return CATALOGUES[l];
}
