// The Law 1 dialog's sentences in the UI language. The core's classifier writes the
// effect lines, path verbs and safer-option sentences in English from a closed set of
// shapes (src/laws/classify); in Chinese each shape is rewritten here, keeping the
// paths and commands verbatim. A line of a shape this table does not know stays in
// English rather than being guessed at.

import { locale } from '../../i18n';

const VERBS_ZH: Record<string, string> = {
  delete: '删除',
  overwrite: '覆盖',
  truncate: '清空',
  'change permissions': '更改权限',
  'stop processes': '停止进程',
  'change system configuration': '更改系统设置',
  send: '发送',
  'erase disk': '抹掉磁盘',
  'discard changes': '丢弃更改',
  'run unchecked code': '运行无法检查的代码',
  move: '移动',
};

const ALTERNATIVES_ZH: Record<string, string> = {
  'Move them to the Trash instead (they can be put back).': '改为移到废纸篓（之后可以放回）。',
  'Move the files to the Trash instead of deleting them, or name them one by one so artoo can offer the Trash.':
    '把文件移到废纸篓而不是删除，或逐个写明文件，让 artoo 可以提供“移到废纸篓”。',
  'Write to a new file name, or keep a copy of the existing file first.': '写入一个新文件名，或先保留现有文件的副本。',
  'Keep the work recoverable first (`git stash` or a commit), or use --force-with-lease instead of --force.':
    '先让工作可以恢复（`git stash` 或提交一次），或用 --force-with-lease 代替 --force。',
  'Change only the files that need it, without -R.': '只更改需要更改的文件，不要用 -R。',
  'Read and note the current setting first so it can be restored.': '先读取并记下当前设置，以便之后恢复。',
  'Prepare a draft for the user to send instead.': '改为准备一份草稿，由你自己发送。',
  'Use a simpler command whose effect can be checked.': '改用一个效果可以检查的更简单的命令。',
};

const STATES_ZH: [RegExp, string][] = [
  [/ \(exists\)/g, '（已存在）'],
  [/ \(does not exist yet\)/g, '（尚不存在）'],
  [/ \(cannot be checked beforehand\)/g, '（无法事先检查）'],
  [/^every match of /, '所有匹配 '],
];

/** One effect line's shapes: English pattern → Chinese with the captured parts kept. */
const EFFECTS_ZH: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^Delete (.+?)(?: — by (`.*`))?$/, (m) => `删除 ${target(m[1])}${by(m[2])}`],
  [/^Overwrite (.+?)(?: — by (`.*`))?$/, (m) => `覆盖 ${target(m[1])}${by(m[2])}`],
  [/^Truncate \(empty\) (.+?)(?: — by (`.*`))?$/, (m) => `清空 ${target(m[1])}${by(m[2])}`],
  [/^Change permissions or ownership of (.+?) and everything under it(?: — by (`.*`))?$/, (m) => `更改 ${target(m[1])} 及其下所有内容的权限或所有者${by(m[2])}`],
  [/^Stop running programs or the computer: (`.*`)$/, (m) => `停止正在运行的程序或关闭电脑：${m[1] ?? ''}`],
  [/^Change system configuration: (`.*`)$/, (m) => `更改系统设置：${m[1] ?? ''}`],
  [/^Send data or a message out of this computer: (`.*`)$/, (m) => `把数据或消息发出这台电脑：${m[1] ?? ''}`],
  [/^Erase or repartition a disk: (`.*`)$/, (m) => `抹掉磁盘或重新分区：${m[1] ?? ''}`],
  [/^Discard uncommitted work or rewrite history: (`.*`)$/, (m) => `丢弃未提交的工作或改写历史：${m[1] ?? ''}`],
  [/^Run something artoo cannot check: (`.*`)$/, (m) => `运行 artoo 无法检查的内容：${m[1] ?? ''}`],
];

function target(text: string | undefined): string {
  let out = text ?? '';
  for (const [pattern, zh] of STATES_ZH) out = out.replace(pattern, zh);
  return out;
}

function by(command: string | undefined): string {
  return command ? `——由 ${command} 执行` : '';
}

function effectLineZh(line: string): string {
  for (const [pattern, render] of EFFECTS_ZH) {
    const m = line.match(pattern);
    if (m) return render(m);
  }
  return line;
}

/** An effect description or a safer-option sentence in the UI language. */
export function law1Text(text: string): string {
  if (locale.value !== 'zh-CN') return text;
  const alternative = ALTERNATIVES_ZH[text.trim()];
  if (alternative) return alternative;
  // Several safer options are joined with a space; several effects with a newline.
  const joined = Object.keys(ALTERNATIVES_ZH).filter((a) => text.includes(a));
  if (joined.length > 1) return joined.map((a) => ALTERNATIVES_ZH[a]).join('');
  return text.split('\n').map(effectLineZh).join('\n');
}

/** A path's verb (`delete`, `overwrite`, …) in the UI language. */
export function law1Verb(verb: string): string {
  if (locale.value !== 'zh-CN') return verb;
  return VERBS_ZH[verb] ?? verb;
}
