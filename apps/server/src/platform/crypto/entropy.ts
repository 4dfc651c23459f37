import { createHash } from 'node:crypto';

/**
 * An outside entropy source (a quantum RNG, /dev/hwrng) as SP 800-90B asks it to be watched,
 * and the pool its healthy bytes go into. `random.ts` mixes the pool into every output; it
 * never hands out the source's bytes themselves.
 *
 * Samples are bytes. Both continuous health tests of SP 800-90B §4.4 run over every byte, with
 * the min-entropy H (bits per byte) the source claims and a false-positive rate α = 2⁻³⁰ per
 * sample: inside 90B's range of 2⁻⁴⁰ to 2⁻²⁰, and low enough that a healthy source read
 * every few seconds does not raise a false alarm every day or two, as 2⁻²⁰ would.
 */

export const HEALTH_ALPHA_LOG2 = -30;
/** The Adaptive Proportion Test's window for non-binary samples (§4.4.2). */
export const APT_WINDOW = 512;
/** Start-up tests run over at least this many samples (§4.3). */
export const STARTUP_SAMPLES = 1024;

/** Repetition Count Test cut-off: C = 1 + ⌈−log2(α) / H⌉ (§4.4.1). */
export function rctCutoff(minEntropy: number, alphaLog2 = HEALTH_ALPHA_LOG2): number {
  checkEntropy(minEntropy);
  return 1 + Math.ceil(-alphaLog2 / minEntropy);
}

/**
 * Adaptive Proportion Test cut-off: C = 1 + CRITBINOM(W, 2^−H, 1 − α) (§4.4.2), the smallest
 * count whose binomial upper tail is at most α, capped at W.
 */
export function aptCutoff(minEntropy: number, alphaLog2 = HEALTH_ALPHA_LOG2, window = APT_WINDOW): number {
  checkEntropy(minEntropy);
  const p = 2 ** -minEntropy;
  const target = 1 - 2 ** alphaLog2;
  if (p >= 1) return window;
  // Cumulative binomial probabilities, pmf terms in log space to stay finite for large W.
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  let logChoose = 0; // log C(W, 0)
  let cumulative = 0;
  for (let k = 0; k <= window; k++) {
    if (k > 0) logChoose += Math.log(window - k + 1) - Math.log(k);
    cumulative += Math.exp(logChoose + k * logP + (window - k) * logQ);
    if (cumulative >= target) return Math.min(window, 1 + k);
  }
  return window;
}

function checkEntropy(minEntropy: number): void {
  if (!(minEntropy > 0 && minEntropy <= 8)) throw new RangeError('min-entropy is in (0, 8] bits per byte');
}

export type HealthFailure = 'rct' | 'apt';

/** The two continuous tests over a stream of bytes; their state carries over from block to block. */
export class HealthTests {
  readonly rctCutoff: number;
  readonly aptCutoff: number;
  private last = -1;
  private run = 0;
  private aptSample = -1;
  private aptCount = 0;
  private aptSeen = 0;

  constructor(readonly minEntropy: number) {
    this.rctCutoff = rctCutoff(minEntropy);
    this.aptCutoff = aptCutoff(minEntropy);
  }

  /** Runs both tests over `block`; the first failure, with where it happened, or null. */
  check(block: Uint8Array): { failure: HealthFailure; detail: string } | null {
    for (let i = 0; i < block.length; i++) {
      const sample = block[i] ?? 0;
      // Repetition Count Test.
      if (sample === this.last) {
        this.run++;
        if (this.run >= this.rctCutoff)
          return {
            failure: 'rct',
            detail: `byte 0x${sample.toString(16).padStart(2, '0')} repeated ${this.run} times in a row (cut-off ${this.rctCutoff})`,
          };
      } else {
        this.last = sample;
        this.run = 1;
      }
      // Adaptive Proportion Test: the first sample of each window, counted over the window.
      if (this.aptSeen === 0) {
        this.aptSample = sample;
        this.aptCount = 1;
      } else if (sample === this.aptSample) {
        this.aptCount++;
        if (this.aptCount >= this.aptCutoff)
          return {
            failure: 'apt',
            detail: `byte 0x${sample.toString(16).padStart(2, '0')} ${this.aptCount} times in a ${APT_WINDOW}-byte window (cut-off ${this.aptCutoff})`,
          };
      }
      this.aptSeen = (this.aptSeen + 1) % APT_WINDOW;
    }
    return null;
  }
}

/**
 * The pool the healthy bytes are absorbed into: SHA-512 over the previous pool and the
 * block. While it is active, `random.ts` XORs every output with SHAKE256(pool ‖ counter), so
 * the result is at least as unpredictable as the operating system's bytes alone.
 */
const pool = {
  state: null as Buffer | null,
  counter: 0n,
  absorbed: 0,
};

export function absorbEntropy(block: Uint8Array): void {
  const hash = createHash('sha512');
  if (pool.state) hash.update(pool.state);
  pool.state?.fill(0);
  pool.state = hash.update(block).digest();
  pool.absorbed += block.length;
}

/** Stops mixing (the source turned invalid or was disabled): OS entropy alone from now on. */
export function dropEntropyPool(): void {
  pool.state?.fill(0);
  pool.state = null;
}

/** Bytes absorbed into the pool since this process started. */
export const entropyAbsorbed = (): number => pool.absorbed;
export const entropyPoolActive = (): boolean => pool.state !== null;

/** XORs `out` in place with the pool's stream, when the pool is active. */
export function mixEntropyInto(out: Buffer): Buffer {
  if (!pool.state || out.length === 0) return out;
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(pool.counter);
  pool.counter = (pool.counter + 1n) & 0xffff_ffff_ffff_ffffn;
  const stream = createHash('shake256', { outputLength: out.length })
    .update(pool.state)
    .update(counter)
    .digest();
  for (let i = 0; i < out.length; i++) out[i] = (out[i] ?? 0) ^ (stream[i] ?? 0);
  stream.fill(0);
  return out;
}
