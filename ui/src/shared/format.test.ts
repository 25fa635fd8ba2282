import { describe, expect, it } from 'vitest';

import { age, bytes, clock, fixed, percent, signed } from './format';

describe('formatting', () => {
  it('shows a missing or non-finite number as a dash (serde writes NaN as null)', () => {
    expect(fixed(null)).toBe('—');
    expect(fixed(Number.NaN)).toBe('—');
    expect(fixed(0.123)).toBe('0.12');
    expect(percent(0.237)).toBe('24%');
  });

  it('writes signs with a true minus and counts down in m:ss rounding up', () => {
    expect(signed(-0.21)).toBe('−0.21');
    expect(signed(0.5)).toBe('+0.50');
    expect(signed(0)).toBe('0.00');
    expect(clock(119_001)).toBe('2:00');
    expect(clock(59_000)).toBe('0:59');
    expect(clock(-5)).toBe('0:00');
  });

  it('sizes and ages compactly', () => {
    expect(bytes(1_468_006_400)).toBe('1.4 GB');
    expect(bytes(512)).toBe('512 B');
    expect(age(3.24)).toBe('3.2 d');
    expect(age(0.2)).toBe('5 h');
    expect(age(0.001)).toBe('1 min');
  });
});
