import { fireEvent, render, screen, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { harness, type Harness } from '../../test-util';
import { AuditPanel } from './AuditPanel';

describe('the audit panel', () => {
  let h: Harness;
  beforeEach(async () => {
    h = harness();
    render(<AuditPanel audit={h.session.audit} now={Date.now()} />);
    await h.advance(50);
  });
  afterEach(() => h.dispose());

  const reports = () => within(screen.getByTestId('audit-reports')).getAllByRole('option');

  it('lists the report history, newest first, and shows the selected report in detail', async () => {
    expect(reports()).toHaveLength(3);
    expect(reports()[0]?.getAttribute('aria-selected')).toBe('true');
    // The seeded runs are the recorded ones; the second (abandon) replanned once.
    const withTask = reports().find((r) => r.textContent?.includes('1 task')) as HTMLElement;
    fireEvent.click(withTask);
    await h.advance(10);
    const detail = screen.getByTestId('audit-report');
    expect(detail.textContent).toContain('Tasks observed');
    expect(detail.textContent).toMatch(/Law 1: Approved 0 · Denied 0/);
  });

  it('runs an audit on demand: the new report is published, listed first and selected', async () => {
    fireEvent.click(screen.getByTestId('audit-now'));
    await h.advance(10);
    expect(screen.getByTestId('audit-now').textContent).toContain('Auditing…');
    await h.advance(1000);
    expect(reports()).toHaveLength(4);
    expect(reports()[0]?.getAttribute('aria-selected')).toBe('true');
    expect(screen.getByTestId('audit-report').textContent).toContain('On demand');
    expect(h.fake.transcript().slice(-2).map((e) => e.message.type)).toEqual(['AuditQuery', 'AuditReport']);
  });

  it("shows the recorded auditor's chain check of the log", async () => {
    fireEvent.click(screen.getByTestId('audit-verify'));
    await h.advance(10);
    const page = await h.fake.invoke('audit_events', { filter: { task_id: null, message_type: null, anomalies_only: false, before_seq: null, limit: 1 } });
    const head = page.events[0]?.hash ?? '';
    expect(screen.getByTestId('chain').textContent).toBe(`Chain intact: ${page.total} events, head ${head.slice(0, 12)}`);
  });

  it('filters the event browser by anomaly, type and task', async () => {
    const events = screen.getByTestId('audit-events');
    const rows = () => events.querySelectorAll('tbody tr');
    expect(rows().length).toBe(50);
    // The recorded runs raise no anomaly.
    fireEvent.click(within(events).getByRole('checkbox', { name: 'Anomalies only' }));
    await h.advance(10);
    expect(rows().length).toBe(0);
    fireEvent.click(within(events).getByRole('checkbox', { name: 'Anomalies only' }));
    fireEvent.change(within(events).getByRole('combobox', { name: 'Type' }), { target: { value: 'FinalResult' } });
    await h.advance(10);
    expect([...rows()].every((r) => r.textContent?.includes('FinalResult'))).toBe(true);
    expect(rows().length).toBe(2);
    const taskSelect = within(events).getByRole('combobox', { name: 'Task' }) as HTMLSelectElement;
    const firstTask = taskSelect.options[1]?.value ?? '';
    fireEvent.change(taskSelect, { target: { value: firstTask } });
    await h.advance(10);
    expect(rows().length).toBe(1);
  });
});
