import { afterEach, describe, expect, it } from 'vitest';

import { en } from './en';
import { catalogue, locale, t, tn } from './index';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the two languages', () => {
  afterEach(() => {
    locale.value = 'en';
  });

  it('fill every placeholder the English text has, and nothing is left untranslated by accident', () => {
    const zh = catalogue('zh-CN');
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect(placeholders(zh[key]), key).toEqual(placeholders(en[key]));
      expect(zh[key].length, key).toBeGreaterThan(0);
    }
    const same = (Object.keys(en) as (keyof typeof en)[]).filter((k) => en[k] === zh[k] && /[a-z]{4,}/.test(en[k]));
    expect(same).toEqual(['app.name', 'panels.title']);
  });

  it('interpolates and counts in the current language', () => {
    expect(t('law1.countdown', { time: '1:30' })).toBe('Denied automatically in 1:30');
    expect(tn('result.replans', 1)).toBe('1 replan');
    expect(tn('result.replans', 3)).toBe('3 replans');
    locale.value = 'zh-CN';
    expect(t('law1.countdown', { time: '1:30' })).toBe('1:30 后自动拒绝');
    expect(tn('audit.tasksCount', 2)).toBe('2 个任务');
  });
});
