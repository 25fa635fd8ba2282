// What a week of use leaves behind, for the fake backend: Megrams across the pyramid,
// default settings and the provider presets.

import type { Megram, MegramOrigin, Settings } from '../contracts';
import type { ProviderPreset } from '../commands';
import { DAY_MS, IdMint, iso } from './support';

/** The defaults of src/config.rs, with a local model configured. */
export function defaultSettings(): Settings {
  return {
    workspace: '~/artoo_workspace',
    llm: {
      brain: { base_url: 'http://127.0.0.1:8080/v1', model: 'qwen2.5-coder-7b-instruct', enable_thinking: false },
      tool: { base_url: 'http://127.0.0.1:8080/v1', model: 'qwen2.5-coder-7b-instruct', enable_thinking: false },
      connect_timeout_secs: 10,
      call_timeout_secs: 120,
      max_attempts: 3,
      retry_base_ms: 500,
      local: { model: 'qwen2.5-coder-1.5b', dir: null },
    },
    ggs: {
      alpha: 0.6,
      beta: 0.3,
      lambda: 0.4,
      w1: 0.6,
      w2: 0.4,
      epsilon: 0.1,
      delta: 0.3,
      rho: 0.5,
      theta: 0.8,
      kill_after_worsening: 2,
    },
    budgets: {
      max_retries: 2,
      max_replans: 3,
      time_budget_ms: 300_000,
      executor_max_steps: 10,
      plan_reasks: 1,
      clarification_rounds: 2,
    },
    memory: {
      attention_floor: 0.5,
      exploit_above: 0.2,
      avoid_below: -0.2,
      gc_below: 0.1,
      consolidate_attention: 5,
      consolidate_decision: 3,
      dreamer_period_secs: 300,
      dreamer_after_task_secs: 5,
      max_constraints: 10,
    },
    laws: { confirm_timeout_secs: 120, allowed_shortcuts: [] },
    tools: {
      shell_timeout_secs: 30,
      output_limit_chars: 4000,
      read_limit_bytes: 1_048_576,
      search_url: 'https://html.duckduckgo.com/html/',
      search_timeout_secs: 15,
      walk_limit_entries: 200_000,
      sandbox: 'auto',
    },
    auditor: { report_period_secs: 300, drift_window_tasks: 20 },
    retention: {
      task_logs_days: 90,
      task_logs_mb: 512,
      audit_days: 365,
      audit_mb: 1024,
    },
    ui: { hotkey: 'CommandOrControl+Shift+Space', language: 'en', launch_at_login: false },
    mcp: {
      connect_timeout_secs: 30,
      call_timeout_secs: 60,
      servers: {
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Documents'], env: {}, tools: [], enabled: true },
      },
    },
  };
}

export const PROVIDER_PRESETS: ProviderPreset[] = [
  { id: 'openai', name: 'OpenAI', base_url: 'https://api.openai.com/v1', brain_model: 'gpt-4.1', tool_model: 'gpt-4.1-mini', needs_key: true },
  { id: 'deepseek', name: 'DeepSeek', base_url: 'https://api.deepseek.com/v1', brain_model: 'deepseek-chat', tool_model: 'deepseek-chat', needs_key: true },
  { id: 'ollama', name: 'Ollama', base_url: 'http://localhost:11434/v1', brain_model: 'qwen2.5-coder:7b', tool_model: 'qwen2.5-coder:7b', needs_key: false },
  { id: 'lmstudio', name: 'LM Studio', base_url: 'http://localhost:1234/v1', brain_model: 'qwen2.5-coder-7b-instruct', tool_model: 'qwen2.5-coder-7b-instruct', needs_key: false },
  { id: 'llama-server', name: 'llama-server (local)', base_url: 'http://127.0.0.1:8080/v1', brain_model: 'qwen2.5-coder-7b-instruct', tool_model: 'qwen2.5-coder-7b-instruct', needs_key: false },
];

const LAWS = [
  'Law 0 — Never deceive: never misrepresent what was actually done or achieved.',
  'Law 1 — Never harm the user’s environment without explicit confirmation of that specific action.',
  'Law 2 — Best effort delivery, and stop after 2 consecutive worsening replans.',
  'Law 3 — Preserve own functioning capacity: convergence, memory and cost integrity.',
];

interface Spec {
  level: Megram['level'];
  space: string;
  entity: string;
  content: string;
  state: MegramOrigin;
  f: number;
  sigma: number;
  k: number;
  daysAgo: number;
  recalledDaysAgo?: number;
}

const SPECS: Spec[] = [
  ...LAWS.map((content) => ({ level: 'T' as const, space: 'thinking:laws', entity: 'env:all', content, state: 'law' as const, f: 1, sigma: 1, k: 0, daysAgo: 30 })),
  { level: 'C', space: 'global:user', entity: 'env:local', content: 'Answer in English unless I write in Chinese.', state: 'user-injected', f: 1, sigma: 1, k: 0, daysAgo: 12 },
  { level: 'C', space: 'intent:find_the_5_largest_video', entity: 'env:local', content: 'Best practice: use mdfind with kMDItemContentTypeTree == public.movie, then sort by size.', state: 'best-practice', f: 1, sigma: 1, k: 0, daysAgo: 6, recalledDaysAgo: 1 },
  { level: 'M', space: 'intent:find_the_5_largest_video', entity: 'env:local', content: 'Succeeded. Tools: mdfind. Result: the 5 largest videos.', state: 'success', f: 0.8, sigma: 1, k: 0.05, daysAgo: 3 },
  { level: 'M', space: 'intent:find_the_5_largest_video', entity: 'env:local', content: 'Succeeded. Tools: mdfind, shell. Result: 5 videos, largest first.', state: 'accept', f: 0.9, sigma: 1, k: 0.05, daysAgo: 1 },
  { level: 'M', space: 'tool:shell', entity: 'path:~/Library/Mobile Documents', content: 'find over iCloud Drive hung for 6 minutes and was killed.', state: 'abandon', f: 0.95, sigma: -1, k: 0.05, daysAgo: 4 },
  { level: 'M', space: 'tool:shell', entity: 'path:~/Library/Mobile Documents', content: 'du over iCloud Drive downloaded files on demand; abandoned.', state: 'change_approach', f: 0.85, sigma: -1, k: 0.05, daysAgo: 2 },
  { level: 'M', space: 'tool:mdfind', entity: 'path:~/Music/Music', content: 'Music library is not indexed by Spotlight.', state: 'change_path', f: 0.3, sigma: 0, k: 0.2, daysAgo: 0.5 },
  { level: 'M', space: 'tool:mdfind', entity: 'path:~/Music/Music', content: 'Again: no Spotlight results inside the Music library.', state: 'change_path', f: 0.3, sigma: 0, k: 0.2, daysAgo: 0.2 },
  { level: 'M', space: 'intent:rename_my_vacation_photos_by', entity: 'env:local', content: 'Succeeded after approving 41 renames. Tools: exiftool-free mdls, shell mv.', state: 'success', f: 0.8, sigma: 1, k: 0.05, daysAgo: 5 },
  { level: 'M', space: 'intent:rename_my_vacation_photos_by', entity: 'env:local', content: 'First plan overwrote names that already existed; changed approach.', state: 'change_approach', f: 0.85, sigma: -1, k: 0.05, daysAgo: 5 },
  { level: 'K', space: 'intent:rename_my_vacation_photos_by', entity: 'env:local', content: 'Photos from the iPhone keep their date in kMDItemContentCreationDate.', state: 'user-injected', f: 0.9, sigma: 1, k: 0.05, daysAgo: 4 },
  { level: 'M', space: 'tool:search', entity: 'path:paris weather tomorrow', content: 'Search timed out twice; the network blocks DuckDuckGo here.', state: 'change_approach', f: 0.85, sigma: -1, k: 0.05, daysAgo: 2 },
  { level: 'M', space: 'intent:summarise_my_meeting_notes', entity: 'env:local', content: 'Tightened the date filter to this week.', state: 'refine', f: 0.1, sigma: 0.5, k: 0.5, daysAgo: 1.5 },
  { level: 'M', space: 'intent:delete_the_duplicate_installers_in', entity: 'env:local', content: 'Succeeded. Compared installers by SHA-256 before deleting.', state: 'success', f: 0.8, sigma: 1, k: 0.05, daysAgo: 21 },
];

export function seedMegrams(ids: IdMint, nowMs: number): Megram[] {
  return SPECS.map((s) => ({
    id: ids.uuid(),
    level: s.level,
    created_at: iso(nowMs - s.daysAgo * DAY_MS),
    last_recalled_at: s.recalledDaysAgo === undefined ? null : iso(nowMs - s.recalledDaysAgo * DAY_MS),
    space: s.space,
    entity: s.entity,
    content: s.content,
    state: s.state,
    f: s.f,
    sigma: s.sigma,
    k: s.k,
  }));
}
