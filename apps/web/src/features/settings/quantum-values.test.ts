import { describe, expect, it } from 'vitest';
import { QUANTUM_DEFAULTS } from '@ksp/contracts';
import {
  endpointProblem,
  failureInMessage,
  formatBytes,
  formatRate,
  settingsOf,
  updateBody,
  validMinEntropy,
} from './quantum-values';

describe('quantum endpoint rule', () => {
  it('requires an endpoint only when the source is enabled', () => {
    expect(endpointProblem('device', '', true)).toBe('required');
    expect(endpointProblem('network', '   ', true)).toBe('required');
    expect(endpointProblem('device', '', false)).toBeNull();
  });

  it('wants an absolute path for a device or a file', () => {
    expect(endpointProblem('device', '/dev/hwrng', true)).toBeNull();
    expect(endpointProblem('file', '/tmp/qrng.bin', true)).toBeNull();
    expect(endpointProblem('device', 'dev/hwrng', true)).toBe('path');
    expect(endpointProblem('file', './qrng.bin', false)).toBe('path');
    expect(endpointProblem('file', 'https://qrng.example.com/', true)).toBe('path');
  });

  it('wants an http(s) URL for a network source', () => {
    expect(endpointProblem('network', 'https://qrng.example.com/random?bytes=1024', true)).toBeNull();
    expect(endpointProblem('network', 'http://10.0.0.5:8080/raw', true)).toBeNull();
    expect(endpointProblem('network', '/dev/hwrng', true)).toBe('url');
    expect(endpointProblem('network', 'ftp://qrng.example.com/raw', true)).toBe('url');
    expect(endpointProblem('network', 'qrng.example.com', true)).toBe('url');
    expect(endpointProblem('network', 'https://', true)).toBe('url');
  });
});

describe('quantum values', () => {
  it('accepts a min-entropy in (0, 8]', () => {
    expect(validMinEntropy(0)).toBe(false);
    expect(validMinEntropy(0.1)).toBe(true);
    expect(validMinEntropy(8)).toBe(true);
    expect(validMinEntropy(8.1)).toBe(false);
    expect(validMinEntropy(null)).toBe(false);
  });

  it('starts an empty form at the contract defaults and trims the endpoint it sends', () => {
    expect(settingsOf(undefined)).toEqual({
      enabled: false,
      source_type: 'device',
      endpoint: '',
      ...QUANTUM_DEFAULTS,
    });
    expect(updateBody({ ...settingsOf(undefined), endpoint: '  /dev/hwrng ' }).endpoint).toBe('/dev/hwrng');
  });

  it('writes sizes and rates for people', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(12595)).toBe('12.3 KB');
    expect(formatBytes(4 * 1024 * 1024)).toBe('4.0 MB');
    expect(formatBytes(1024 * 1024 - 1)).toBe('1.0 MB');
    expect(formatRate(12595)).toBe('12.3 KB/s');
    expect(formatRate(null)).toBe('-');
  });
});

describe('a refusal of the server', () => {
  it('names its failure in either language, and nothing else', () => {
    expect(failureInMessage('The source failed its start-up tests (rct): byte 0x41 repeated 6 times')).toBe(
      'rct',
    );
    expect(failureInMessage('熵源启动自检失败（short-read）：got 0 bytes')).toBe('short-read');
    expect(failureInMessage('endpoint: /tmp/x (copy) does not exist or cannot be read')).toBeNull();
    expect(failureInMessage('No entropy source is configured')).toBeNull();
  });
});
