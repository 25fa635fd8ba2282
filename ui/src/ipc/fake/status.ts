// The fake backend's stand-in for the core's status lines (src/status in Rust), so the
// browser preview and the UI tests show a status line for the fake's scripted runs. The
// real wording is the core's: features/status/lines.generated.json holds it for every
// message kind, and the UI's tests check the popup against that file.

import type { Envelope } from '../contracts';

type Lang = 'en' | 'zh-CN';

export class FakeStatus {
  private readonly plans = new Map<string, string[]>();

  /** The line `envelope` begins, in `lang`, or null. */
  line(envelope: Envelope, lang: Lang): string | null {
    const zh = lang === 'zh-CN';
    const pick = (en: string, cn: string) => (zh ? cn : en);
    const step = (task: string | undefined, sub: string): string => {
      const steps = task ? this.plans.get(task) : undefined;
      const n = steps ? steps.indexOf(sub) + 1 : 0;
      if (!steps || n === 0) return pick('A step', '某一步');
      return pick(`Step ${n} of ${steps.length}`, `第 ${n}/${steps.length} 步`);
    };
    const m = envelope.message;
    const task = envelope.task_id ?? undefined;
    switch (m.type) {
      case 'TaskSubmitted':
        return pick('Reading your request…', '正在理解你的请求…');
      case 'TaskSpec':
        return pick(`Understood: ${m.payload.intent}`, `已理解：${m.payload.intent}`);
      case 'MemoryQuery':
        return pick('Checking what worked before…', '正在回顾以往的经验…');
      case 'DispatchManifest': {
        this.plans.set(m.payload.task_id, m.payload.subtasks.map((s) => s.subtask_id));
        const n = m.payload.subtasks.length;
        if ((m.payload.round ?? 0) > 0) return pick(`New plan: ${n} steps…`, `新的计划：共 ${n} 步…`);
        return pick(`Planning ${n} steps…`, `计划分 ${n} 步完成…`);
      }
      case 'SubTask':
        return `${step(task, m.payload.subtask_id)}${pick(': ', '：')}${m.payload.intent}`;
      case 'ToolCallEvent': {
        const s = step(task, m.payload.subtask_id);
        const r = m.payload.record;
        const doing = r.tool === 'shell' ? pick(`running \`${r.target}\``, `运行 \`${r.target}\``) : `${r.tool} ${r.target}`;
        if (r.status === 'ok') return `${s}${pick(': ', '：')}${doing}`;
        return pick(`${s}: ${doing} did not work — ${r.error ?? ''}`, `${s}：${doing}没有成功——${r.error ?? ''}`);
      }
      case 'CorrectionSignal': {
        const s = step(task, m.payload.subtask_id);
        return pick(
          `${s} fell short: ${m.payload.what_was_wrong} — trying again: ${m.payload.what_to_do}`,
          `${s}未达成：${m.payload.what_was_wrong}——再试一次：${m.payload.what_to_do}`,
        );
      }
      case 'SubTaskOutcome': {
        const s = step(task, m.payload.subtask_id);
        if (m.payload.status === 'matched') return pick(`${s} done.`, `${s}已完成。`);
        return pick(`${s} failed: ${m.payload.failure_reason ?? ''}`, `${s}失败了：${m.payload.failure_reason ?? ''}`);
      }
      case 'ReplanRequest':
        return pick('Some steps fell short — looking for a better way…', '有步骤未达成——正在寻找更好的办法…');
      case 'PlanDirective':
        return pick('Trying another place or target…', '换一个位置或目标再试…');
      case 'OutcomeSummary':
        return pick('All steps done — checking the whole result…', '所有步骤已完成——正在检查整体结果…');
      case 'ConfirmationRequest':
        return pick(`Waiting for your approval: ${m.payload.description}`, `等待你的批准：${m.payload.description}`);
      case 'ConfirmationDecision':
        if (m.payload.decision === 'deny') return pick('Denied — nothing was changed; looking for another way…', '已拒绝——没有做任何更改；正在寻找其他办法…');
        return pick('Approved — going on…', '已批准——继续…');
      case 'ClarificationRequest':
        return pick(`A question for you: ${m.payload.question}`, `需要你回答一个问题：${m.payload.question}`);
      case 'ChatReply':
        return pick('Answered.', '已回答。');
      case 'FinalResult':
        this.plans.delete(m.payload.task_id);
        return m.payload.directive === 'abandon' ? pick('Could not finish.', '未能完成。') : pick('Done.', '完成。');
      case 'TaskClosed':
        return m.payload.end.kind === 'cancelled' ? pick('Cancelled.', '已取消。') : null;
      default:
        return null;
    }
  }
}
