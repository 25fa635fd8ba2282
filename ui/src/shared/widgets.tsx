// Small domain-free widgets in the macOS idiom: segmented control, chip, field row,
import { useEffect, useState } from 'preact/hooks';
// switch, spinner, empty state, inline error.

import type { ComponentChildren } from 'preact';

export type Tone = 'neutral' | 'good' | 'bad' | 'warn' | 'info';

export function Chip({ tone = 'neutral', children, title }: { tone?: Tone; children: ComponentChildren; title?: string }) {
  return (
    <span class={`chip ${tone === 'neutral' ? '' : tone}`} title={title}>
      {children}
    </span>
  );
}

export interface SegmentOption<T extends string> {
  id: T;
  label: string;
  icon?: ComponentChildren;
}

export function Segmented<T extends string>({
  options,
  value,
  onChange,
  label,
}: {
  options: readonly SegmentOption<T>[];
  value: T;
  onChange: (id: T) => void;
  label: string;
}) {
  return (
    <div class="seg" role="tablist" aria-label={label}>
      {options.map((o) => (
        <button type="button" role="tab" key={o.id} aria-selected={o.id === value} onClick={() => onChange(o.id)}>
          {o.icon}
          {o.label}
        </button>
      ))}
    </div>
  );
}

export function Field({ label, children, htmlFor, hint }: { label: string; children: ComponentChildren; htmlFor?: string; hint?: ComponentChildren }) {
  return (
    <div class="field">
      <label for={htmlFor}>{label}</label>
      <div class="stack" style={{ gap: '3px' }}>
        {children}
        {hint ? <span class="small muted">{hint}</span> : null}
      </div>
    </div>
  );
}

export function Switch({ checked, onChange, id, label }: { checked: boolean; onChange: (value: boolean) => void; id?: string; label?: string }) {
  return (
    <input
      id={id}
      class="switch"
      type="checkbox"
      role="switch"
      aria-label={label}
      checked={checked}
      onChange={(e) => onChange(e.currentTarget.checked)}
    />
  );
}

export function Spinner({ label }: { label: string }) {
  return <span class="spinner" role="status" aria-label={label} />;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

export function ErrorText({ children }: { children: ComponentChildren }) {
  return (
    <p class="error-text small" role="alert">
      {children}
    </p>
  );
}

/**
 * A destructive button that asks once inline: the first click arms it (its label turns
 * into the question), a second click within a few seconds does it. No modal, no native
 * dialog (webviews differ in whether they show one).
 */
export function ConfirmButton({
  children,
  question,
  onConfirm,
  disabled,
  className,
  ariaLabel,
}: {
  children: ComponentChildren;
  question: string;
  onConfirm: () => void;
  disabled?: boolean;
  className?: string;
  ariaLabel?: string;
}) {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    if (!armed) return undefined;
    const timer = setTimeout(() => setArmed(false), 4000);
    return () => clearTimeout(timer);
  }, [armed]);
  return (
    <button
      type="button"
      class={`${className ?? 'btn'} ${armed ? 'armed' : ''}`}
      disabled={disabled}
      aria-label={armed ? question : ariaLabel}
      title={armed ? question : ariaLabel}
      onClick={() => {
        if (armed) {
          setArmed(false);
          onConfirm();
        } else {
          setArmed(true);
        }
      }}
    >
      {armed ? <span class="confirm-question">{question}</span> : children}
    </button>
  );
}
