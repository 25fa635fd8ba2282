// The loss and macro-state cascade, so the fake's scripted runs carry numbers a real GGS
// would have produced for the same round.

import type { GgsParams, Budgets, Gradient, Loss, MacroState, Urgency } from '../contracts';

export interface RoundInput {
  d: number;
  p: number;
  replans: number;
  elapsedMs: number;
}

export interface RoundOutcome {
  loss: Loss;
  gradL: number;
  state: MacroState;
  gradient: Gradient;
  urgency: Urgency;
}

function n(value: number | null | undefined, fallback: number): number {
  return value ?? fallback;
}

export function computeLoss(input: RoundInput, ggs: GgsParams, budgets: Budgets): Loss {
  const omega = Math.min(
    1,
    n(ggs.w1, 0.6) * (input.replans / Math.max(1, budgets.max_replans)) +
      n(ggs.w2, 0.4) * (input.elapsedMs / Math.max(1, budgets.time_budget_ms)),
  );
  const betaEff = n(ggs.beta, 0.3) * (1 - omega);
  const l = n(ggs.alpha, 0.6) * input.d + betaEff * input.p + n(ggs.lambda, 0.4) * omega;
  return { D: input.d, P: input.p, Omega: omega, L: l };
}

/** The diagnostic cascade: Ω first, then D, then (|∇L|, P). */
export function decide(
  input: RoundInput,
  prevL: number | null,
  allMatched: boolean,
  ggs: GgsParams,
  budgets: Budgets,
): RoundOutcome {
  const loss = computeLoss(input, ggs, budgets);
  const l = loss.L ?? 0;
  const gradL = prevL === null ? 0 : l - prevL;
  const eps = n(ggs.epsilon, 0.1);
  const delta = n(ggs.delta, 0.3);
  const plateau = Math.abs(gradL) < eps;
  const gradient: Gradient =
    gradL > eps ? 'worsening' : gradL < -eps ? 'improving' : input.d > delta ? 'plateau' : 'stable';
  const urgency: Urgency = gradL > eps ? 'high' : gradL < -eps ? 'low' : 'normal';
  const logical = input.p > n(ggs.rho, 0.5);
  let state: MacroState;
  if ((loss.Omega ?? 0) >= n(ggs.theta, 0.8)) state = 'abandon';
  else if (input.d <= delta) state = input.d === 0 && allMatched ? 'accept' : 'success';
  else if (plateau) state = logical ? 'break_symmetry' : 'change_path';
  else state = logical ? 'change_approach' : 'refine';
  return { loss, gradL, state, gradient, urgency };
}

/** f, σ, k of GGS's quantization matrix. */
export const QUANTIZATION: Record<MacroState, { f: number; sigma: number; k: number }> = {
  abandon: { f: 0.95, sigma: -1, k: 0.05 },
  accept: { f: 0.9, sigma: 1, k: 0.05 },
  change_approach: { f: 0.85, sigma: -1, k: 0.05 },
  success: { f: 0.8, sigma: 1, k: 0.05 },
  break_symmetry: { f: 0.75, sigma: 1, k: 0.05 },
  change_path: { f: 0.3, sigma: 0, k: 0.2 },
  refine: { f: 0.1, sigma: 0.5, k: 0.5 },
};
