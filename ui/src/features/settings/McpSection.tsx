// Settings → MCP servers: the servers of `[mcp]` (add, enable, remove, import a Claude
// Desktop / Cursor `mcpServers` config) with what the running core connected, and the
// standing "always allow" grants, each revocable. Server changes are part of the draft and
// saved with the rest; a revoke applies at once.

import { useState } from 'preact/hooks';

import { t } from '../../i18n';
import type { McpServerConfig } from '../../ipc/contracts';
import type { McpServerStatus } from '../../ipc/commands';
import { ErrorText, Field, Switch } from '../../shared/widgets';
import type { SettingsStore } from './store';

/** A server's command line or URL, as the core shows it. */
export function origin(server: McpServerConfig): string {
  return server.url ?? [server.command ?? '', ...server.args].join(' ');
}

export function McpSection({ settings }: { settings: SettingsStore }) {
  const draft = settings.draft.value;
  if (!draft) return null;
  const status = settings.mcp.value.value ?? [];
  const servers = Object.entries(draft.mcp.servers);
  return (
    <section class="settings-group" data-testid="mcp-settings">
      <h3>{t('mcp.title')}</h3>
      <p class="small muted">{t('mcp.about')}</p>
      {servers.length === 0 ? <p class="small muted">{t('mcp.none')}</p> : null}
      <ul class="mcp-servers stack">
        {servers.map(([name, server]) => (
          <ServerRow key={name} name={name} server={server} status={status.find((s) => s.name === name) ?? null} settings={settings} />
        ))}
      </ul>
      <AddServer settings={settings} taken={(name) => name in draft.mcp.servers} />
      <ImportConfig settings={settings} />
      <Grants settings={settings} />
    </section>
  );
}

function ServerRow({ name, server, status, settings }: { name: string; server: McpServerConfig; status: McpServerStatus | null; settings: SettingsStore }) {
  const id = `mcp-${name}-enabled`;
  const saved = settings.view.value.value?.settings.mcp.servers[name];
  const line = !server.enabled
    ? t('mcp.state.disabled')
    : status === null || JSON.stringify(saved) !== JSON.stringify(server)
      ? t('mcp.state.unsaved')
      : status.connected
        ? t('mcp.state.connected', { count: status.tools.length })
        : t('mcp.state.failed', { error: status.error ?? '' });
  return (
    <li class="mcp-server stack" data-testid={`mcp-server-${name}`}>
      <div class="row">
        <strong>{name}</strong>
        <code class="small selectable mcp-origin">{origin(server)}</code>
        <span class="spacer" />
        <label class="small" for={id}>
          {t('mcp.enabled')}
        </label>
        <Switch id={id} label={t('mcp.enabled.of', { name })} checked={server.enabled} onChange={(v) => settings.edit((d) => void ((d.mcp.servers[name] as McpServerConfig).enabled = v))} />
        <button
          type="button"
          class="btn"
          aria-label={t('mcp.remove.of', { name })}
          onClick={() =>
            settings.edit((d) => {
              delete d.mcp.servers[name];
            })
          }
        >
          {t('mcp.remove')}
        </button>
      </div>
      <span class="small muted" data-testid={`mcp-state-${name}`}>
        {line}
      </span>
      {status && status.connected && status.tools.length > 0 ? (
        <details>
          <summary class="small">{t('mcp.tools', { count: status.tools.length })}</summary>
          <ul class="small">
            {status.tools.map((tool) => (
              <li key={tool.name}>
                <code>{tool.name}</code> <span class={`chip ${tool.read_only && !tool.changed ? 'info' : 'warn'}`}>{tool.changed ? t('mcp.tool.changed') : tool.read_only ? t('mcp.tool.readOnly') : t('mcp.tool.asks')}</span> {tool.summary}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </li>
  );
}

function AddServer({ settings, taken }: { settings: SettingsStore; taken: (name: string) => boolean }) {
  const [name, setName] = useState('');
  const [target, setTarget] = useState('');
  const [args, setArgs] = useState('');
  const trimmed = name.trim();
  const way = target.trim();
  const usable = /^[A-Za-z0-9_-]{1,32}$/.test(trimmed) && !taken(trimmed) && way !== '';
  return (
    <fieldset class="tier">
      <legend>{t('mcp.add')}</legend>
      <Field label={t('mcp.add.name')} htmlFor="mcp-add-name" hint={t('mcp.add.name.hint')}>
        <input id="mcp-add-name" type="text" value={name} spellcheck={false} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label={t('mcp.add.target')} htmlFor="mcp-add-target" hint={t('mcp.add.target.hint')}>
        <input id="mcp-add-target" type="text" value={target} spellcheck={false} onInput={(e) => setTarget(e.currentTarget.value)} />
      </Field>
      <Field label={t('mcp.add.args')} htmlFor="mcp-add-args" hint={t('mcp.add.args.hint')}>
        <textarea id="mcp-add-args" rows={2} value={args} spellcheck={false} onInput={(e) => setArgs(e.currentTarget.value)} />
      </Field>
      <div class="row">
        <button
          type="button"
          class="btn"
          disabled={!usable}
          onClick={() => {
            const http = /^https?:\/\//i.test(way);
            const server: McpServerConfig = {
              ...(http ? { url: way } : { command: way }),
              args: http ? [] : args.split('\n').map((a) => a.trim()).filter((a) => a !== ''),
              env: {},
              tools: [],
              enabled: true,
            };
            settings.edit((d) => void (d.mcp.servers[trimmed] = server));
            setName('');
            setTarget('');
            setArgs('');
          }}
        >
          {t('mcp.add.button')}
        </button>
      </div>
    </fieldset>
  );
}

function ImportConfig({ settings }: { settings: SettingsStore }) {
  const [json, setJson] = useState('');
  const result = settings.imported.value;
  return (
    <fieldset class="tier">
      <legend>{t('mcp.import')}</legend>
      <Field label={t('mcp.import.json')} htmlFor="mcp-import-json" hint={t('mcp.import.hint')}>
        <textarea id="mcp-import-json" rows={4} value={json} spellcheck={false} onInput={(e) => setJson(e.currentTarget.value)} />
      </Field>
      <div class="row">
        <button type="button" class="btn" disabled={json.trim() === ''} onClick={() => void settings.importMcp(json)}>
          {t('mcp.import.button')}
        </button>
        <span class="small" role="status" aria-live="polite" data-testid="mcp-import-result">
          {result?.ok
            ? [
                t('mcp.import.added', { names: result.added.join(', ') || '—' }),
                result.kept.length > 0 ? t('mcp.import.kept', { names: result.kept.join(', ') }) : '',
                result.skipped.length > 0 ? t('mcp.import.skipped', { list: result.skipped.join('; ') }) : '',
              ]
                .filter((x) => x !== '')
                .join(' ')
            : ''}
        </span>
      </div>
      {result && !result.ok ? <ErrorText>{result.error}</ErrorText> : null}
    </fieldset>
  );
}

function Grants({ settings }: { settings: SettingsStore }) {
  const grants = settings.grants.value.value ?? [];
  return (
    <div class="stack" data-testid="mcp-grants">
      <h3>{t('mcp.grants')}</h3>
      <p class="small muted">{t('mcp.grants.about')}</p>
      {grants.length === 0 ? <p class="small muted">{t('mcp.grants.none')}</p> : null}
      <ul class="stack">
        {grants.map((g) => {
          const label = `${g.subject.server}.${g.subject.tool}`;
          return (
            <li key={`${label} ${g.subject.origin} ${g.subject.fingerprint}`} class="row">
              <code>{label}</code>
              <span class="small muted mcp-origin">{g.subject.origin}</span>
              <span class="small muted">{t('mcp.grants.since', { date: g.granted_at.slice(0, 10) })}</span>
              <span class="spacer" />
              <button type="button" class="btn" aria-label={t('mcp.grants.revoke.of', { name: label })} onClick={() => void settings.revoke(g.subject)}>
                {t('mcp.grants.revoke')}
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
