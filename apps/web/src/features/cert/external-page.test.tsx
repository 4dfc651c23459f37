import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api } from '@ksp/contracts';
import { envelope } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import ExternalCertPage from './external-page';
import { answerWith, inLanguageEachTest, signedInEachTest } from '../../test-session';
import { choose, optionTexts } from '../../test-select';

const row = {
  id: '55555555-5555-4555-8555-555555555555',
  name: 'Partner Root',
  kind: 'ca',
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

/** A storage array's own certificate, registered over KMIP: kept, never a trust anchor. */
const leaf = {
  ...row,
  id: '66666666-6666-4666-8666-666666666666',
  name: 'array-7',
  kind: 'certificate',
  subject: 'CN=array-7',
  issuer: 'CN=Partner Root,O=Partner',
  serial: '02',
  fingerprint: 'ab'.repeat(32),
  self_signed: false,
};

function serve() {
  return answerWith((config) => {
    switch (config.url) {
      case api.cert.externalList.path: {
        const kind = (config.params as { kind?: string } | undefined)?.kind;
        const rows = [row, leaf].filter((r) => !kind || r.kind === kind);
        return envelope({ data: rows, total: rows.length });
      }
      case api.cert.externalDetail.path:
        return envelope({
          ...leaf,
          certificate_pem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
        });
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
      kind: 'ca',
    });
    // The server's message is shown as it comes, and the dialog stays for another try.
    expect(await screen.findByText(/not a PEM certificate, a PKCS#7/)).toBeTruthy();
    expect(screen.getByTestId('external-upload-ok')).toBeTruthy();
  });

  it("shows each certificate's kind, filters by it, and uploads an end-entity certificate as one", async () => {
    const seen = serve();
    renderPage('/console/cert/external', '/console/cert/external', <ExternalCertPage />);
    const ca = await screen.findByTestId('external-row-Partner Root');
    expect(within(ca).getByTestId('external-kind').textContent).toBe('CA certificate');
    const kept = screen.getByTestId('external-row-array-7');
    expect(within(kept).getByTestId('external-kind').textContent).toBe('End-entity certificate');

    // The kind filter asks the server for that kind only.
    await choose('external-filter-kind', 'End-entity certificate');
    fireEvent.click(screen.getByTestId('external-search'));
    await waitFor(() => expect(screen.queryByTestId('external-row-Partner Root')).toBeNull());
    expect(screen.getByTestId('external-row-array-7')).toBeTruthy();
    const lists = seen.filter((config) => config.url === api.cert.externalList.path);
    expect(lists.at(-1)?.params).toMatchObject({ kind: 'certificate' });

    // Its detail says what it is for.
    fireEvent.click(screen.getByTestId('external-link-array-7'));
    expect((await screen.findByTestId('external-detail-kind')).textContent).toBe('End-entity certificate');
    expect(screen.getByText('Only kept: never trusted as an issuer')).toBeTruthy();
    expect(screen.getByText("External certificate 'array-7'")).toBeTruthy();

    // Uploading: CA certificates unless the kind is changed.
    fireEvent.click(screen.getByTestId('external-upload'));
    await choose('external-upload-kind', 'End-entity certificate');
    fireEvent.change(await screen.findByTestId('external-content'), {
      target: { value: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----' },
    });
    fireEvent.click(screen.getByTestId('external-upload-ok'));
    await waitFor(() =>
      expect(seen.some((config) => config.url === api.cert.externalUpload.path)).toBe(true),
    );
    expect(
      JSON.parse(String(seen.find((config) => config.url === api.cert.externalUpload.path)?.data)),
    ).toMatchObject({ kind: 'certificate' });
  });

  describe('in Chinese', () => {
    inLanguageEachTest('zh');

    it('names the kinds and offers them in the filter', async () => {
      serve();
      renderPage('/console/cert/external', '/console/cert/external', <ExternalCertPage />);
      const kept = await screen.findByTestId('external-row-array-7');
      expect(within(kept).getByTestId('external-kind').textContent).toBe('终端实体证书');
      expect(
        within(screen.getByTestId('external-row-Partner Root')).getByTestId('external-kind').textContent,
      ).toBe('CA 证书');
      expect(optionTexts('external-filter-kind')).toEqual(['CA 证书', '终端实体证书']);
    });
  });
});
