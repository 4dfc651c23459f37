import { describe, expect, it } from 'vitest';
import { caAlgorithms, signOnlyAlgorithms } from '@ksp/contracts';
import { caDownloads, certActionsFor, certDownloads, keyDownloads } from './cert-actions';
import { base64ToBytes, bytesToBase64, hasPrivateKey, readCertFile } from './cert-files';
import { issueBody, issueFormShape, usageChoices, type IssueValues } from './issue-model';

const base: IssueValues = {
  name: ' web ',
  ca_id: '11111111-1111-4111-8111-111111111111',
  source: 'csr',
  csr: ' -----BEGIN CERTIFICATE REQUEST-----x ',
  key_algorithm: 'EC-P256',
  exportable: true,
  cn: '',
  c: ' ',
  dns_names: 'a.example.com, b.example.com',
  purpose: 'server',
  usage: 'both',
  validity_days: 365,
  path_len: 2,
};

describe('issue form model', () => {
  it('offers signature alone for every sign-only algorithm of a generated key', () => {
    for (const algorithm of caAlgorithms) {
      const usages = usageChoices({ source: 'generated', key_algorithm: algorithm });
      expect(usages).toEqual(
        signOnlyAlgorithms.includes(algorithm) ? ['signature'] : ['encryption', 'signature', 'both'],
      );
    }
    // A CSR's key is checked by the server: every usage is offered.
    expect(usageChoices({ source: 'csr', key_algorithm: 'ED25519' })).toHaveLength(3);
  });

  it('shows the path length for an intermediate CA only and "exportable" for a generated key only', () => {
    expect(issueFormShape({ source: 'csr', purpose: 'server', key_algorithm: undefined })).toMatchObject({
      csr: true,
      keyAlgorithm: false,
      exportable: false,
      pathLen: false,
    });
    expect(
      issueFormShape({ source: 'generated', purpose: 'intermediate', key_algorithm: 'RSA-2048' }),
    ).toMatchObject({
      csr: false,
      keyAlgorithm: true,
      exportable: true,
      pathLen: true,
      cnRequired: true,
    });
  });

  it('sends only the fields of the chosen combination', () => {
    expect(issueBody(base)).toEqual({
      name: 'web',
      ca_id: base.ca_id,
      csr: '-----BEGIN CERTIFICATE REQUEST-----x',
      dns_names: 'a.example.com, b.example.com',
      purpose: 'server',
      usage: 'both',
      validity_days: 365,
      exportable: false,
    });
    expect(
      issueBody({
        ...base,
        source: 'generated',
        key_algorithm: 'ML-DSA-65',
        purpose: 'intermediate',
        cn: 'Sub CA',
      }),
    ).toEqual({
      name: 'web',
      ca_id: base.ca_id,
      key_algorithm: 'ML-DSA-65',
      exportable: true,
      cn: 'Sub CA',
      dns_names: 'a.example.com, b.example.com',
      purpose: 'intermediate',
      usage: 'signature',
      validity_days: 365,
      path_len: 2,
    });
  });
});

describe('certificate actions', () => {
  it('revoke a valid one, resume one on hold, delete a revoked or expired one', () => {
    expect(certActionsFor({ status: 'normal' })).toEqual({ revoke: true, resume: false, delete: false });
    expect(certActionsFor({ status: 'hold' })).toEqual({ revoke: false, resume: true, delete: false });
    expect(certActionsFor({ status: 'revoked' })).toEqual({ revoke: false, resume: false, delete: true });
    expect(certActionsFor({ status: 'expired' })).toEqual({ revoke: false, resume: false, delete: true });
  });

  it('offer the private key only when the server holds it, it is exportable and the user may export', () => {
    const held = { has_private_key: true, exportable: true };
    expect(keyDownloads(held, true)).toEqual(['key-pkcs8', 'key-pkcs12']);
    expect(keyDownloads(held, false)).toEqual([]);
    expect(keyDownloads({ has_private_key: true, exportable: false }, true)).toEqual([]);
    expect(keyDownloads({ has_private_key: false, exportable: false }, true)).toEqual([]);
    expect(certDownloads({ source: 'generated' })).not.toContain('csr');
    expect(certDownloads({ source: 'csr' })).toContain('csr');
    expect(caDownloads({ state: 'pending' })).toEqual(['csr']);
    expect(caDownloads({ state: 'active' })).toContain('crl-der');
  });
});

describe('certificate files', () => {
  it('keeps PEM as text and sends a binary file as Base64', async () => {
    const pem = await readCertFile(new Blob(['-----BEGIN PKCS7-----\nMIIB\n-----END PKCS7-----\n']));
    expect(pem).toEqual({ content: '-----BEGIN PKCS7-----\nMIIB\n-----END PKCS7-----', binary: false });
    const der = await readCertFile(new Blob([new Uint8Array([0x30, 0x82, 0x01, 0xff, 0x06])]));
    expect(der).toEqual({ content: 'MIIB/wY=', binary: true });
    expect(bytesToBase64(base64ToBytes('MIIB/wY='))).toBe('MIIB/wY=');
  });

  it('recognises private keys of every PEM label', () => {
    expect(hasPrivateKey('-----BEGIN EC PRIVATE KEY-----')).toBe(true);
    expect(hasPrivateKey('-----BEGIN ENCRYPTED PRIVATE KEY-----')).toBe(true);
    expect(hasPrivateKey('-----BEGIN CERTIFICATE REQUEST-----')).toBe(false);
  });
});
