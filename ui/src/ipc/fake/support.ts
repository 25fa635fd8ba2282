// Deterministic ids, hashes and time helpers for the fake backend, so a seeded fake
// produces the same data (and the same screenshots) on every run.

/** mulberry32: a tiny seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class IdMint {
  private readonly random: () => number;

  constructor(seed: number) {
    this.random = prng(seed);
  }

  private hex(n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += Math.floor(this.random() * 16).toString(16);
    return out;
  }

  /** A v4-shaped UUID. */
  uuid(): string {
    const variant = (8 + Math.floor(this.random() * 4)).toString(16);
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-${variant}${this.hex(3)}-${this.hex(12)}`;
  }

  /** A SHA-256-shaped hash (64 hex digits) standing for one recorded chain hash. */
  hash(): string {
    return this.hex(64);
  }

  /** A task id as the runtime mints them: `task_` + 12 hex digits. */
  taskId(): string {
    return `task_${this.hex(12)}`;
  }
}

export const DAY_MS = 86_400_000;

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
