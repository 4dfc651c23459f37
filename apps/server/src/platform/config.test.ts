import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('configuration', () => {
  it('defaults to loopback, port 8080, SQLite under ./data', () => {
    const c = loadConfig({}, '/srv/ksp');
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: '/srv/ksp/data',
      databaseUrl: null,
      tls: null,
    });
    expect(c.session).toEqual({ idleSeconds: 1800, maxSeconds: 28800 });
  });

  it('refuses a non-loopback address without TLS, with a message that says what to do', () => {
    expect(() => loadConfig({ KSP_HOST: '0.0.0.0' })).toThrow(
      /without TLS: set KSP_TLS_CERT and KSP_TLS_KEY/,
    );
    expect(() => loadConfig({ KSP_TLS_CERT: 'c.pem' })).toThrow(/must be given together/);
    const tls = loadConfig({ KSP_HOST: '0.0.0.0', KSP_TLS_CERT: 'c.pem', KSP_TLS_KEY: 'k.pem' }, '/etc/ksp');
    expect(tls.tls).toEqual({ cert: '/etc/ksp/c.pem', key: '/etc/ksp/k.pem' });
  });

  it("lets the operator name the PKCS#11 library directories, defaulting to Debian's", () => {
    const dirs = (value?: string) =>
      loadConfig(value === undefined ? {} : { KSP_PKCS11_DIRS: value }, '/srv').pkcs11Dirs;
    expect(dirs()).toContain('/usr/lib/softhsm');
    expect(dirs('/opt/vendor/lib:/usr/lib/softhsm/')).toEqual(['/opt/vendor/lib', '/usr/lib/softhsm']);
    expect(dirs('none')).toEqual([]);
    expect(() => dirs('/opt/ok:vendor/lib')).toThrow(
      'KSP_PKCS11_DIRS: vendor/lib is not an absolute directory',
    );
  });

  it('bounds SSH connections to the networks the operator names, the private ranges by default', () => {
    const ssh = (value?: string) =>
      loadConfig(value === undefined ? {} : { KSP_SSH_ALLOWED_NETWORKS: value }).ssh;
    expect(ssh().networks).toEqual(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']);
    expect(ssh().timeoutMs).toBe(10_000);
    expect(ssh('10.20.0.0/16, 203.0.113.7').networks).toEqual(['10.20.0.0/16', '203.0.113.7']);
    expect(ssh('any').networks).toBe('any');
    expect(() => ssh('10.0.0.0/33')).toThrow(
      'KSP_SSH_ALLOWED_NETWORKS: 10.0.0.0/33 is not an address or CIDR range',
    );
  });

  it('names the bad variable', () => {
    expect(() => loadConfig({ KSP_PORT: 'eighty' })).toThrow(/KSP_PORT/);
    expect(() => loadConfig({ KSP_SESSION_IDLE_SECONDS: '7200', KSP_SESSION_MAX_SECONDS: '3600' })).toThrow(
      /IDLE/,
    );
  });
});
