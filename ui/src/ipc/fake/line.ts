// The fake backend's stand-in for the core's one-line summary of a message
// (src/describe.rs), which the shell sends with every envelope. The fake runs no core, so
// it cannot get the real line; its message flow shows the first plain text the payload
// carries, or the kind's name. The real lines reach the UI's tests through the golden
// transcripts (tests/fixtures/transcripts) and features/status/lines.generated.json.

import type { Message } from '../contracts';

/** Payload fields whose text says what the message is about, most telling first. */
const TEXT_FIELDS = ['raw_input', 'intent', 'question', 'answer', 'command', 'reason', 'gap_summary', 'summary', 'accomplished', 'detail'];

export function fakeLine(message: Message): string {
  const payload = message.payload as unknown as Record<string, unknown>;
  for (const field of TEXT_FIELDS) {
    const text = payload[field];
    if (typeof text === 'string' && text.trim().length > 0) return text.replace(/\s+/g, ' ').trim().slice(0, 96);
  }
  return message.type;
}
