// The fake backend's default settings and provider presets.

import type { Settings } from '../contracts';
import type { ProviderPreset } from '../commands';

/** The defaults of src/config.rs, with a local model configured. */
export function defaultSettings(): Settings {
  return {
    workspace: '~/artoo_workspace',
    llm: {
      brain: { base_url: 'http://127.0.0.1:8080/v1', model: 'qwen2.5-coder-7b-instruct', enable_thinking: false },
      tool: { base_url: 'http://127.0.0.1:8080/v1', model: 'qwen2.5-coder-7b-instruct', enable_thinking: false },
      connect_timeout_secs: 10,
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
      executor_max_steps: 6,
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
    laws: { confirm_timeout_secs: 120, allowed_shortcuts: [], offer_always_after: 3 },
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
      trash_days: 30,
      trash_mb: 2048,
    },
    ui: {
      hotkey: 'CommandOrControl+Shift+Space',
      language: 'en',
      launch_at_login: false,
      notify_approvals: true,
      notify_done: true,
      notify_abandoned: true,
    },
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
