import { describe, expect, it } from 'vitest';
import { bytesToBase64, encodeLogin, isDirectoryUsername, sha256 } from './login-encoding';

describe('login encoding', () => {
  it('hashes with SHA-256 (known vector for "admin")', async () => {
    const digest = await sha256('admin');
    const hex = [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('');
    expect(hex).toBe('8c6976e5b5410415bde908bd4dee15dfb167a9c873fc4bb8a81f6f2ab448a918');
    expect(bytesToBase64(digest)).toBe('jGl25bVBBBW96Qi9Te4V37Fnqchz/Eu4qB9vKrRIqRg=');
  });

  it('encodes a local user: base64(utf8(name)), base64(sha256(utf8(password)))', async () => {
    await expect(encodeLogin('admin', 'admin')).resolves.toEqual({
      username: 'YWRtaW4=',
      password: 'jGl25bVBBBW96Qi9Te4V37Fnqchz/Eu4qB9vKrRIqRg=',
    });
  });

  it('trims the username first', async () => {
    const encoded = await encodeLogin('  admin \t', 'admin');
    expect(encoded.username).toBe('YWRtaW4=');
  });

  it('encodes UTF-8, not Latin-1', async () => {
    const encoded = await encodeLogin('管理员', 'pässwörd');
    expect(encoded.username).toBe('566h55CG5ZGY');
    const expected = bytesToBase64(await sha256('pässwörd'));
    expect(encoded.password).toBe(expected);
    expect(encoded.password).not.toBe(bytesToBase64(await sha256('passwrd')));
  });

  it('sends a directory user (connection/name) as typed', async () => {
    expect(isDirectoryUsername('corp-ldap/alice')).toBe(true);
    await expect(encodeLogin(' corp-ldap/alice ', 'S3cret pass')).resolves.toEqual({
      username: 'corp-ldap/alice',
      password: 'S3cret pass',
    });
  });
});
