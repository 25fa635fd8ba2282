// Every kind of line the Law 1 dialog and the sandbox note show, as the core writes them
// (law1-lines.json is written by the core's test `the_dialog_s_english_lines_are_the_ones_
// the_ui_translates`), reads in Chinese: nothing of the English sentence is left, only the
// paths, commands, names and codes it quotes.

import { afterEach, describe, expect, it } from 'vitest';

import { locale } from '../../i18n';
import lines from './law1-lines.json';
import { grantWords, law1Text, law1Verb, sandboxText } from './law1-text';

/** What is left of `text` once quoted commands, quoted strings, paths and codes are gone. */
function prose(text: string): string {
  return text
    .replace(/`[^`]*`/g, ' ')
    .replace(/"[^"]*"/g, ' ')
    .replace(/\S*\/\S*/g, ' ')
    .replace(/U\+[0-9A-F]{4}/g, ' ');
}

/** Three English words in a row: a sentence left untranslated. */
const ENGLISH = /[A-Za-z]+[\s,;:.]+[A-Za-z]+[\s,;:.]+[A-Za-z]+/;
const CJK = /[\u4e00-\u9fff]/;

function expectChinese(english: string, chinese: string): void {
  expect(chinese, english).not.toBe(english);
  expect(CJK.test(chinese), chinese).toBe(true);
  expect(prose(chinese), `${english}\n→ ${chinese}`).not.toMatch(ENGLISH);
}

describe('the Law 1 dialog in Chinese', () => {
  afterEach(() => {
    locale.value = 'en';
  });

  it('has every kind of line the core writes', () => {
    expect(lines.lines.length).toBeGreaterThanOrEqual(15);
    locale.value = 'zh-CN';
    for (const line of lines.lines) expectChinese(line, law1Text(line));
    for (const alternative of lines.alternatives) expectChinese(alternative, law1Text(alternative));
    for (const verb of lines.verbs) expect(CJK.test(law1Verb(verb)), verb).toBe(true);
    for (const note of lines.sandbox) expectChinese(note, sandboxText(note));
  });

  it('stays in English when the UI is', () => {
    for (const line of lines.lines) expect(law1Text(line)).toBe(line);
    for (const note of lines.sandbox) expect(sandboxText(note)).toBe(note);
  });

  it('keeps the paths and commands it quotes', () => {
    locale.value = 'zh-CN';
    const move = lines.lines.find((l) => l.startsWith('Move '));
    expect(move).toBeDefined();
    const zh = law1Text(move ?? '');
    for (const quoted of (move ?? '').match(/`[^`]*`/g) ?? []) expect(zh).toContain(quoted);
    expect(zh).toContain('/home/u/notes.txt');
  });

  it('says every shape of a standing grant by effect, the folder kept, and leaves an unknown shape as written', () => {
    const words = {
      'deleting .tmp files under ~/Downloads': '删除 ~/Downloads 下的 .tmp 文件',
      'deleting files and folders under ~/Downloads/old': '删除 ~/Downloads/old 下的文件和文件夹',
      'overwriting .csv files under ~/My Reports': '覆盖 ~/My Reports 下的 .csv 文件',
      'emptying files under ~/logs': '清空 ~/logs 下的文件',
      'changing the permissions of .sh files under ~/bin': '更改 ~/bin 下的 .sh 文件的权限',
      'moving away files under ~/Desktop': '移走 ~/Desktop 下的文件',
    };
    for (const english of Object.keys(words)) expect(grantWords(english)).toBe(english);
    locale.value = 'zh-CN';
    for (const [english, chinese] of Object.entries(words)) expect(grantWords(english)).toBe(chinese);
    expect(grantWords('renaming files under ~/x')).toBe('renaming files under ~/x');
  });
});
