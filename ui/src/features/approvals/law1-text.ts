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
  'change owner': '更改所有者',
  'delete the contents of': '删除其中的内容',
  'create (outside the workspace)': '新建（在工作区之外）',
  create: '新建',
  append: '追加',
};

/** A held layer's dialog (the core's `sandbox::held_dialog`): what the command did in the
 * sandbox, one group of changes per line. */
const HELD_ZH: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^In the sandbox, this command would:$/, () => '在沙箱中，这条命令会：'],
  [
    /^Nothing of it is applied yet\. Approving applies exactly these changes \(the command does not run again\) and keeps every original it replaces or removes in artoo's trash\.$/,
    () => '这些更改都还没有应用。批准后只应用这些更改（命令不会再运行一次），它替换或删除的每个原件都保存在 artoo 的废纸篓里。',
  ],
  [/^- and (\d+) more groups? of changes$/, (m) => `- 还有 ${m[1] ?? ''} 组更改`],
  [
    /^- (.+?) (\d+ (?:files?|folders?)(?: and \d+ folders?)?) in (.+?): (.+) \(([^()]*)\)$/,
    (m) => `- ${VERBS_ZH[m[1] ?? ''] ?? m[1] ?? ''}：${m[3] ?? ''} 中的 ${countZh(m[2] ?? '')}：${namesZh(m[4] ?? '')}（${m[5] ?? ''}）`,
  ],
];

/** "2 files and 1 folder" → "2 个文件和 1 个文件夹". */
function countZh(count: string): string {
  return count
    .replace(/(\d+) files?/, '$1 个文件')
    .replace(/(\d+) folders?/, '$1 个文件夹')
    .replace(' and ', '和');
}

/** Quoted names, the last maybe "and N more". */
function namesZh(names: string): string {
  return names.replace(/, and (\d+) more$/, '，还有 $1 个').replace(/`, `/g, '`、`');
}

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
  'Copy instead of moving, so the original stays where it is.': '改为复制而不是移动，让原文件留在原处。',
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
  [/^Move (.+?) away from where it is(?: — by (`.*`))?$/, (m) => `把 ${target(m[1])} 从原处移走${by(m[2])}`],
];

/** What an MCP server says of a tool artoo has not run before. */
const MCP_HINTS_ZH: Record<string, string> = {
  'declares it read-only, a hint artoo cannot check': '并声明它只读——这是 artoo 无法核实的提示',
  'says it only adds, never deletes, a hint artoo cannot check': '并说它只添加、从不删除——这是 artoo 无法核实的提示',
  'does not declare it read-only; it may change or delete data': '但没有声明它只读；它可能修改或删除数据',
};

/** The notes an effect line may end with, in parentheses: English pattern → Chinese. */
const NOTES_ZH: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^the server changed this tool's definition since it was first trusted; check the server before you approve$/, () => '服务器在首次信任之后改动了这个工具的定义；批准前请先检查该服务器'],
  [/^the MCP server (`[^`]*`) does not declare this tool read-only; it may change or delete data$/, (m) => `MCP 服务器 ${m[1] ?? ''} 没有声明这个工具只读；它可能修改或删除数据`],
  [/^the MCP server (`[^`]*`) does not declare this tool read-only; says it only adds, never deletes — a hint artoo cannot check$/, (m) => `MCP 服务器 ${m[1] ?? ''} 没有声明这个工具只读；它说自己只添加、从不删除——这是 artoo 无法核实的提示`],
  [
    /^artoo has not run this tool of the MCP server (`[^`]*`) before; the server describes it as ("[^"]*") and (.+); approving trusts this definition$/,
    (m) => `artoo 还没有运行过 MCP 服务器 ${m[1] ?? ''} 的这个工具；服务器对它的描述是 ${m[2] ?? ''}，${MCP_HINTS_ZH[m[3] ?? ''] ?? m[3] ?? ''}；批准即信任这个定义`,
  ],
  [/^a Shortcut's steps cannot be inspected, whatever its name says$/, () => '无论名称怎么说，快捷指令的步骤都无法检查'],
  [/^contains characters that are invisible or only look like Latin letters \((.+)\)$/, (m) => `含有不可见或只是看起来像拉丁字母的字符（${m[1] ?? ''}）`],
];

/** A note in Chinese; a remote machine's note starts "on <host>". */
function noteZh(note: string): string | null {
  const remote = note.match(/^on ([^;]+?)(?:; (.+))?$/);
  if (remote) {
    const rest = remote[2] === undefined ? '' : noteZh(remote[2]);
    if (rest === null) return null;
    return `在 ${remote[1] ?? ''} 上${rest ? `；${rest}` : ''}`;
  }
  for (const [pattern, render] of NOTES_ZH) {
    const m = note.match(pattern);
    if (m) return render(m);
  }
  return null;
}

/** The line without its trailing note, and the note in Chinese, when it has a known one. */
function splitNote(line: string): [string, string] | null {
  // The note is the last parenthesis; a note may hold parentheses of its own.
  for (let at = line.lastIndexOf(' ('); at > 0; at = line.lastIndexOf(' (', at - 1)) {
    if (!line.endsWith(')')) return null;
    const zh = noteZh(line.slice(at + 2, -1));
    if (zh !== null) return [line.slice(0, at), zh];
  }
  return null;
}

function target(text: string | undefined): string {
  let out = text ?? '';
  for (const [pattern, zh] of STATES_ZH) out = out.replace(pattern, zh);
  return out;
}

function by(command: string | undefined): string {
  return command ? `——由 ${command} 执行` : '';
}

function effectLineZh(line: string): string {
  for (const [pattern, render] of HELD_ZH) {
    const m = line.match(pattern);
    if (m) return render(m);
  }
  const split = splitNote(line);
  const [main, note] = split ?? [line, null];
  for (const [pattern, render] of EFFECTS_ZH) {
    const m = main.match(pattern);
    if (m) return note === null ? render(m) : `${render(m)}（${note}）`;
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

/** A class of file changes in words (the core's `effect_grants::words`): the verb, what
 * files, the folder. */
const GRANT_VERBS_ZH: Record<string, (place: string, what: string) => string> = {
  deleting: (place, what) => `删除 ${place} 下的${what}`,
  overwriting: (place, what) => `覆盖 ${place} 下的${what}`,
  emptying: (place, what) => `清空 ${place} 下的${what}`,
  'changing the permissions of': (place, what) => `更改 ${place} 下的${what}的权限`,
  'moving away': (place, what) => `移走 ${place} 下的${what}`,
};

/** A standing grant by effect in the UI language ("deleting .tmp files under
 * ~/Downloads"), the folder kept verbatim; words of a shape this does not know stay as
 * the core wrote them. */
export function grantWords(words: string): string {
  if (locale.value !== 'zh-CN') return words;
  const m = words.match(/^(deleting|overwriting|emptying|changing the permissions of|moving away) (?:\.(\S+) files|(files and folders)|files) under (.+)$/);
  const render = GRANT_VERBS_ZH[m?.[1] ?? ''];
  if (!m || !render) return words;
  const what = m[2] !== undefined ? ` .${m[2]} 文件` : m[3] !== undefined ? '文件和文件夹' : '文件';
  return render(m[4] ?? '', what);
}

const MECHANISMS_ZH: Record<string, string> = {
  'bubblewrap with overlays of the home folder and the workspace': 'bubblewrap，主文件夹和工作区各有一层覆盖',
  'Seatbelt (sandbox-exec)': 'Seatbelt（sandbox-exec）',
};

const SANDBOX_OFF_ZH: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^it is turned off in settings \((.+)\)$/, (m) => `它在设置中被关闭（${m[1] ?? ''}）`],
  [/^bubblewrap is not installed$/, () => '没有安装 bubblewrap'],
  [/^there is no socket filter for this processor \((.+)\)$/, (m) => `这种处理器（${m[1] ?? ''}）没有套接字过滤器`],
  [/^artoo has no sandbox for (.+)$/, (m) => `artoo 没有适用于 ${m[1] ?? ''} 的沙箱`],
];

/** The sandbox's one line (the core's `Status::describe`) in the UI language. A reason
 * that quotes a system error keeps the error as the system wrote it. */
export function sandboxText(text: string): string {
  if (locale.value !== 'zh-CN') return text;
  const on = text.match(/^the sandbox is on \((.+)\)$/);
  if (on) return `沙箱已开启（${MECHANISMS_ZH[on[1] ?? ''] ?? on[1] ?? ''}）`;
  const off = text.match(/^the sandbox is off: (.+)\. Every command artoo cannot prove harmless asks first\.$/);
  if (!off) return text;
  let why = off[1] ?? '';
  for (const [pattern, render] of SANDBOX_OFF_ZH) {
    const m = why.match(pattern);
    if (m) {
      why = render(m);
      break;
    }
  }
  return `沙箱已关闭：${why}。artoo 无法证明无害的每条命令都会先询问你。`;
}
