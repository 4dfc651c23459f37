import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearErrorLog, getErrorLog, installErrorLog, recordError } from './error-log';

afterEach(() => clearErrorLog());

describe('error log', () => {
  it('does nothing outside production', () => {
    const uninstall = installErrorLog(false);
    const add = vi.spyOn(window, 'addEventListener');
    recordError(new Error('boom'), 'render');
    expect(getErrorLog()).toEqual([]);
    expect(add).not.toHaveBeenCalled();
    uninstall();
  });

  it('keeps {err, info, url} and prints it in production', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const uninstall = installErrorLog(true);
    const boom = new Error('boom');
    recordError(boom, 'render', 'http://localhost/console/dashboard');
    expect(getErrorLog()).toEqual([{ err: boom, info: 'render', url: 'http://localhost/console/dashboard' }]);
    expect(error).toHaveBeenCalledTimes(1);

    window.dispatchEvent(new ErrorEvent('error', { error: boom, message: 'boom' }));
    expect(getErrorLog()).toHaveLength(2);
    expect(getErrorLog()[1]).toMatchObject({ err: boom, info: 'window.onerror', url: window.location.href });

    uninstall();
    recordError(boom, 'after');
    expect(getErrorLog()).toHaveLength(2);
  });
});
