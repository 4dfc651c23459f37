import { describe, expect, it } from 'vitest';
import { dispositionFilename } from './download';

describe('download file names', () => {
  it('come from Content-Disposition, the UTF-8 form first', () => {
    expect(dispositionFilename('attachment; filename="ksp-log-20260301-100000Z.csv"')).toBe(
      'ksp-log-20260301-100000Z.csv',
    );
    expect(dispositionFilename('attachment; filename=ksp-log.json')).toBe('ksp-log.json');
    expect(
      dispositionFilename(`attachment; filename="log.csv"; filename*=UTF-8''%E6%97%A5%E5%BF%97.csv`),
    ).toBe('日志.csv');
    expect(dispositionFilename('attachment')).toBeNull();
    expect(dispositionFilename(null)).toBeNull();
  });
});
