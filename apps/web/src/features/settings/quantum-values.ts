import {
  QUANTUM_DEFAULTS,
  quantumFailures,
  type QuantumFailure,
  type QuantumSettings,
  type QuantumSourceType,
  type QuantumState,
} from '@ksp/contracts';

/** The form's values: the contract's settings. */
export type QuantumFormValues = QuantumSettings;

export const MAX_MIN_ENTROPY = 8;

/** How often the page reads the status again. */
export const QUANTUM_REFRESH_MS = 10_000;

/** The settings part of a state, for the form. */
export function settingsOf(state: QuantumState | undefined): QuantumFormValues {
  return {
    enabled: state?.enabled ?? false,
    source_type: state?.source_type ?? 'device',
    endpoint: state?.endpoint ?? '',
    min_entropy: state?.min_entropy ?? QUANTUM_DEFAULTS.min_entropy,
    block_bytes: state?.block_bytes ?? QUANTUM_DEFAULTS.block_bytes,
    interval_seconds: state?.interval_seconds ?? QUANTUM_DEFAULTS.interval_seconds,
  };
}

export type EndpointProblem = 'required' | 'path' | 'url';

/**
 * What is wrong with an endpoint, as the server checks it before touching the source:
 * required when the source is enabled; an absolute path for a device or a file; an
 * http(s) URL for a network source. An empty endpoint of a disabled source is fine.
 */
export function endpointProblem(
  sourceType: QuantumSourceType,
  endpoint: string,
  enabled: boolean,
): EndpointProblem | null {
  const value = endpoint.trim();
  if (value === '') return enabled ? 'required' : null;
  if (sourceType === 'network') {
    if (!/^https?:\/\//i.test(value)) return 'url';
    try {
      const url = new URL(value);
      return url.hostname === '' ? 'url' : null;
    } catch {
      return 'url';
    }
  }
  return value.startsWith('/') ? null : 'path';
}

/** Whether H is a min-entropy the server accepts: 0 < H ≤ 8. */
export function validMinEntropy(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_MIN_ENTROPY;
}

/** The body of `quantum/update`: the form's values, the endpoint trimmed. */
export function updateBody(values: QuantumFormValues): QuantumSettings {
  return {
    enabled: values.enabled,
    source_type: values.source_type,
    endpoint: values.endpoint.trim(),
    min_entropy: values.min_entropy,
    block_bytes: values.block_bytes,
    interval_seconds: values.interval_seconds,
  };
}

const byteUnits = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;

/** 512 → "512 B", 12595 → "12.3 KB", 4194304 → "4.0 MB" (binary multiples, 1 KB = 1024 B). */
export function formatBytes(bytes: number): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < byteUnits.length - 1) {
    value /= 1024;
    unit += 1;
  }
  // 1023.96 KB rounds to "1024.0 KB": say "1.0 MB" instead.
  if (unit > 0 && Number(value.toFixed(1)) >= 1024 && unit < byteUnits.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(1)} ${byteUnits[unit]}`;
}

/** Bytes per second as "12.3 KB/s"; null (never read) as "-". */
export function formatRate(bytesPerSecond: number | null): string {
  return bytesPerSecond === null ? '-' : `${formatBytes(bytesPerSecond)}/s`;
}

/**
 * The failure a refusal names: the contract's `quantum.startupFailed` message puts the failure
 * code in brackets ("… start-up tests (rct): …", "…失败（rct）：…"), so the page can say it in
 * the console's language.
 */
export function failureInMessage(message: string): QuantumFailure | null {
  const named = /[(（]([a-z-]+)[)）]/.exec(message)?.[1];
  return quantumFailures.find((failure) => failure === named) ?? null;
}
