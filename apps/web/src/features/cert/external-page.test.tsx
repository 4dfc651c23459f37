import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api } from '@ksp/contracts';
import { envelope } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import ExternalCertPage from './external-page';
import { answerWith, signedInEachTest } from '../../test-session';

const row = {
  id: '55555555-5555-4555-8555-555555555555',
  name: 'Partner Root',
  subject: 'CN=Partner Root,O=Partner',
  issuer: 'CN=Partner Root,O=Partner',
  serial: '01',
  fingerprint: 'ef'.repeat(32),
  algorithm: 'RSA-2048',
  not_before: '2025-01-01T00:00:00Z',
  not_after: '2035-01-01T00:00:00Z',
  status: 'valid',
  self_signed: true,
  created_at: '2026-01-01T00:00:00Z',
};

function serve() {
  return answerWith((config) => {
    switch (config.url) {
      case api.cert.externalList.path:
        return envelope({ data: [row], total: 1 });
      case api.cert.externalUpload.path:
        return envelope(null, 4000, 'content: not a PEM certificate, a PKCS#7 (.p7b) chain or Base64 DER');
      default:
        return envelope(null);
    }
  });
}

signedInEachTest({ permissions: ['cert:read', 'cert:write'] });

describe('external CAs page', () => {
  it('lists the CAs and uploads a binary .p7b as Base64, keeping the dialog open on a refusal', async () => {
    const seen = serve();
    renderPage('/console/cert/external', '/console/cert/external', <ExternalCertPage />);
    const listed = await screen.findByTestId('external-row-Partner Root');
    expect(within(listed).getByText('Valid')).toBeTruthy();
    expect(within(listed).getAllByText('CN=Partner Root,O=Partner')).toHaveLength(2);

    fireEvent.click(screen.getByTestId('external-upload'));
    const file = new File([new Uint8Array([0x30, 0x82, 0x01, 0xff])], 'chain.p7b');
    fireEvent.change(await screen.findByTestId('external-content-file'), { target: { files: [file] } });
    expect(await screen.findByText('chain.p7b (binary, sent as Base64)')).toBeTruthy();
    fireEvent.click(screen.getByTestId('external-upload-ok'));
    await waitFor(() =>
      expect(seen.some((config) => config.url === api.cert.externalUpload.path)).toBe(true),
    );
    expect(
      JSON.parse(String(seen.find((config) => config.url === api.cert.externalUpload.path)?.data)),
    ).toEqual({
      content: 'MIIB/w==',
    });
    // The server's message is shown as it comes, and the dialog stays for another try.
    expect(await screen.findByText(/not a PEM certificate, a PKCS#7/)).toBeTruthy();
    expect(screen.getByTestId('external-upload-ok')).toBeTruthy();
  });
});
