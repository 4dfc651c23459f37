import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { InternalAxiosRequestConfig } from 'axios';
import { api } from '@ksp/contracts';
import { saveSignedIn } from '../../api/session';
import { changeLanguage } from '../../i18n/i18n';
import { envelope, signedInFixture } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import LocalCertPage from './local-page';
import { caRow, certRow, PENDING_ID } from './cert-test-fixtures';
import { answerWith, signedInEachTest } from '../../test-session';
import { choose, optionTexts } from '../../test-select';

const cas = [
  caRow(),
  caRow({
    id: PENDING_ID,
    name: 'next-ca',
    cn: 'Next CA',
    state: 'pending',
    type: null,
    is_default: false,
    serial: null,
    not_before: null,
    not_after: null,
    fingerprint: null,
    issuer: null,
  }),
];
const certs = [
  certRow({ name: 'web' }),
  certRow({
    name: 'paused',
    status: 'hold',
    revocation_reason: 'certificateHold',
    revoked_at: '2026-02-01T00:00:00Z',
  }),
  certRow({
    name: 'gone',
    status: 'revoked',
    revocation_reason: 'keyCompromise',
    revoked_at: '2026-02-01T00:00:00Z',
  }),
  certRow({ name: 'old', status: 'expired' }),
  certRow({ name: 'soon', expiring: true }),
  certRow({ name: 'keyed', source: 'generated', has_private_key: true, exportable: true }),
];

const detailOf = (row: (typeof certs)[number] | undefined) => ({
  ...row,
  certificate_pem: 'PEM',
  chain_pem: [],
  csr_pem: null,
  key_usage: [],
  ext_key_usage: [],
});

function bodyOf(config: InternalAxiosRequestConfig | undefined): unknown {
  return JSON.parse(String(config?.data));
}

function serve() {
  return answerWith((config) => {
    switch (config.url) {
      case api.cert.caList.path:
        return envelope({ data: cas, total: cas.length });
      case api.cert.list.path:
        return envelope({ data: certs, total: certs.length });
      case api.cert.detail.path:
        return envelope(detailOf(certs.find((c) => c.id === (config.params as { id: string }).id)));
      case api.cert.caDownload.path:
        return { status: 404, data: { code: 4040, msg: 'There is no CSR for this object', data: null } };
      case api.cert.downloadKey.path:
        return envelope({ filename: 'keyed.p12', content_type: 'application/x-pkcs12', content: 'MIIB' });
      case api.cert.issue.path:
      case api.cert.revoke.path:
      case api.cert.resume.path:
        return envelope(detailOf(certs[0]));
      default:
        return envelope(null);
    }
  });
}

signedInEachTest({ permissions: ['cert:read', 'cert:write', 'cert:export'] });
afterEach(async () => {
  await changeLanguage('en');
});

const rowOf = (name: string) => screen.getByTestId(`cert-row-${name}`);

describe('local certificates page', () => {
  it('opens the certificate a link names (?cert=<id>, as the key list links), and forgets it on close', async () => {
    serve();
    const { router } = renderPage(
      `/console/cert/local?cert=${certs[0]!.id}`,
      '/console/cert/local',
      <LocalCertPage />,
    );
    const drawer = await screen.findByTestId('cert-detail');
    await waitFor(() => expect(within(drawer).getAllByText('web').length).toBeGreaterThan(0));
    fireEvent.click(within(drawer.closest('.ant-drawer') ?? drawer).getByRole('button', { name: /close/i }));
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('shows each status with the expiring badge, and revoke, resume and delete only where they apply', async () => {
    serve();
    renderPage('/console/cert/local', '/console/cert/local', <LocalCertPage />);
    await screen.findByTestId('cert-row-web');
    expect(within(rowOf('web')).getByText('Normal')).toBeTruthy();
    expect(within(rowOf('paused')).getByText('On hold')).toBeTruthy();
    expect(within(rowOf('gone')).getByText('Revoked')).toBeTruthy();
    expect(within(rowOf('soon')).getByTestId('cert-expiring')).toBeTruthy();
    expect(within(rowOf('web')).queryByTestId('cert-expiring')).toBeNull();

    expect(within(rowOf('web')).getByTestId('cert-revoke-web')).toBeTruthy();
    expect(within(rowOf('web')).queryByTestId('cert-resume-web')).toBeNull();
    expect(within(rowOf('web')).queryByTestId('cert-delete-web')).toBeNull();

    expect(within(rowOf('paused')).getByTestId('cert-resume-paused')).toBeTruthy();
    expect(within(rowOf('paused')).queryByTestId('cert-revoke-paused')).toBeNull();
    expect(within(rowOf('paused')).queryByTestId('cert-delete-paused')).toBeNull();

    expect(within(rowOf('gone')).getByTestId('cert-delete-gone')).toBeTruthy();
    expect(within(rowOf('gone')).queryByTestId('cert-resume-gone')).toBeNull();
    expect(within(rowOf('old')).getByTestId('cert-delete-old')).toBeTruthy();
    expect(within(rowOf('old')).queryByTestId('cert-revoke-old')).toBeNull();
  });

  it('hides every change from a reader', async () => {
    saveSignedIn(signedInFixture({ permissions: ['cert:read'] }));
    serve();
    renderPage('/console/cert/local', '/console/cert/local', <LocalCertPage />);
    await screen.findByTestId('cert-row-web');
    expect(screen.queryByTestId('cert-issue')).toBeNull();
    expect(screen.queryByTestId('cert-revoke-web')).toBeNull();
    expect(screen.queryByTestId('cert-resume-paused')).toBeNull();
    expect(screen.getByTestId('cert-download-web')).toBeTruthy();
    // Without cert:export no private key is offered, even an exportable one.
    fireEvent.click(within(rowOf('keyed')).getByTestId('cert-download-keyed'));
    await screen.findByTestId('cert-download-keyed-cert-pem');
    expect(screen.queryByTestId('cert-download-keyed-key-pkcs8')).toBeNull();
  });

  it('sends the URL filters the contract knows', async () => {
    const seen = serve();
    renderPage(
      '/console/cert/local?status=hold&purpose=nope&expiring=true',
      '/console/cert/local',
      <LocalCertPage />,
    );
    await screen.findByTestId('cert-row-web');
    const last = seen.filter((config) => config.url === api.cert.list.path).at(-1);
    expect(last?.params).toEqual({ page: 1, page_size: 20, status: 'hold', expiring: 'true' });
  });

  it('the issue form offers only valid combinations', async () => {
    const seen = serve();
    renderPage('/console/cert/local', '/console/cert/local', <LocalCertPage />);
    await screen.findByTestId('cert-row-web');
    fireEvent.click(screen.getByTestId('cert-issue'));
    await screen.findByTestId('issue-form');

    // From a CSR: no key algorithm, no "exportable", no path length for a server certificate.
    expect(screen.getByTestId('issue-csr')).toBeTruthy();
    expect(screen.queryByTestId('issue-algorithm')).toBeNull();
    expect(screen.queryByTestId('issue-exportable')).toBeNull();
    expect(screen.queryByTestId('issue-path-len')).toBeNull();

    // Only the intermediate purpose has a path length.
    await choose('issue-purpose', 'Intermediate CA');
    // A path length beyond 16 is named at once.
    fireEvent.change(await screen.findByTestId('issue-path-len'), { target: { value: '17' } });
    expect(await screen.findByText('Path length must be a whole number from 0 to 16')).toBeTruthy();
    await choose('issue-purpose', 'Client');
    await waitFor(() => expect(screen.queryByTestId('issue-path-len')).toBeNull());

    // A generated key: algorithm and "exportable" appear, the CSR goes.
    fireEvent.click(screen.getByTestId('issue-source-generated'));
    expect(await screen.findByTestId('issue-algorithm')).toBeTruthy();
    expect(screen.getByTestId('issue-exportable')).toBeTruthy();
    expect(screen.queryByTestId('issue-csr')).toBeNull();

    // Encryption is offered for EC, then not for Ed25519 (which signs only).
    await choose('issue-usage', 'Encryption and signature');
    await waitFor(() =>
      expect(optionTexts('issue-usage')).toEqual(['Encryption', 'Signature', 'Encryption and signature']),
    );
    await choose('issue-algorithm', 'ED25519');
    expect(await screen.findByText('ED25519 keys can only sign.')).toBeTruthy();
    await waitFor(() => expect(optionTexts('issue-usage')).toEqual(['Signature']));

    fireEvent.change(screen.getByTestId('issue-name'), { target: { value: 'edge' } });
    fireEvent.click(screen.getByTestId('issue-ok'));
    // Without a CSR the common name is required.
    expect(await screen.findByText('Please enter Common name')).toBeTruthy();
    fireEvent.change(screen.getByTestId('issue-cn'), { target: { value: 'edge.example.com' } });
    fireEvent.click(screen.getByTestId('issue-exportable'));
    // A validity of 0 days is named and stays as typed; nothing is sent until it is mended.
    fireEvent.change(screen.getByTestId('issue-validity'), { target: { value: '0' } });
    fireEvent.click(screen.getByTestId('issue-ok'));
    expect(await screen.findByText('Validity (days) must be a whole number from 1 to 36500')).toBeTruthy();
    expect(screen.getByTestId<HTMLInputElement>('issue-validity').value).toBe('0');
    expect(seen.some((config) => config.url === api.cert.issue.path)).toBe(false);
    fireEvent.change(screen.getByTestId('issue-validity'), { target: { value: '365' } });
    fireEvent.click(screen.getByTestId('issue-ok'));
    await waitFor(() => expect(seen.some((config) => config.url === api.cert.issue.path)).toBe(true));
    expect(bodyOf(seen.find((config) => config.url === api.cert.issue.path))).toEqual({
      name: 'edge',
      ca_id: cas[0]?.id,
      key_algorithm: 'ED25519',
      exportable: true,
      cn: 'edge.example.com',
      purpose: 'client',
      usage: 'signature',
      validity_days: 365,
    });
  });

  it('revokes with a reason of RFC 5280', async () => {
    const seen = serve();
    renderPage('/console/cert/local', '/console/cert/local', <LocalCertPage />);
    await screen.findByTestId('cert-row-web');
    fireEvent.click(screen.getByTestId('cert-revoke-web'));
    await screen.findByTestId('revoke-reason');
    await choose('revoke-reason', 'Certificate hold (can be resumed)');
    fireEvent.click(screen.getByTestId('revoke-ok'));
    await waitFor(() => expect(seen.some((config) => config.url === api.cert.revoke.path)).toBe(true));
    expect(bodyOf(seen.find((config) => config.url === api.cert.revoke.path))).toEqual({
      id: certs[0]?.id,
      reason: 'certificateHold',
    });
  });

  it.each([
    ['en', 'Error downloading CSR file'],
    ['zh', '下载 CSR 文件出错'],
  ] as const)('a failed CSR download says so (%s)', async (language, text) => {
    await changeLanguage(language);
    serve();
    renderPage('/console/cert/local', '/console/cert/local', <LocalCertPage />);
    fireEvent.click(await screen.findByTestId('tab-cas'));
    await screen.findByTestId('ca-row-next-ca');
    // A pending CA offers its CSR only, and the actions that give it a certificate.
    const pending = screen.getByTestId('ca-row-next-ca');
    expect(within(pending).getByTestId('ca-self-sign-next-ca')).toBeTruthy();
    expect(within(pending).getByTestId('ca-install-next-ca')).toBeTruthy();
    expect(within(screen.getByTestId('ca-row-root-ca')).queryByTestId('ca-self-sign-root-ca')).toBeNull();
    fireEvent.click(within(pending).getByTestId('ca-download-next-ca'));
    fireEvent.click(await screen.findByTestId('ca-download-next-ca-csr'));
    expect(await screen.findByText(text)).toBeTruthy();
    // The server's own words are not shown instead.
    expect(screen.queryByText('There is no CSR for this object')).toBeNull();
  });

  it('resumes a certificate on hold after a confirmation', async () => {
    const seen = serve();
    renderPage('/console/cert/local', '/console/cert/local', <LocalCertPage />);
    await screen.findByTestId('cert-row-paused');
    fireEvent.click(screen.getByTestId('cert-resume-paused'));
    fireEvent.click(await screen.findByTestId('cert-resume-ok'));
    await waitFor(() => expect(seen.some((config) => config.url === api.cert.resume.path)).toBe(true));
    expect(bodyOf(seen.find((config) => config.url === api.cert.resume.path))).toEqual({ id: certs[1]?.id });
  });

  it('offers the private key of an exportable generated key only, under a confirmed password', async () => {
    URL.createObjectURL = vi.fn(() => 'blob:key');
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const seen = serve();
    renderPage('/console/cert/local', '/console/cert/local', <LocalCertPage />);
    await screen.findByTestId('cert-row-keyed');
    fireEvent.click(within(rowOf('web')).getByTestId('cert-download-web'));
    await screen.findByTestId('cert-download-web-cert-pem');
    expect(screen.queryByTestId('cert-download-web-key-pkcs12')).toBeNull();

    fireEvent.click(within(rowOf('keyed')).getByTestId('cert-download-keyed'));
    fireEvent.click(await screen.findByTestId('cert-download-keyed-key-pkcs12'));
    fireEvent.change(await screen.findByTestId('key-password'), { target: { value: 'long-password' } });
    fireEvent.change(screen.getByTestId('key-password-confirm'), { target: { value: 'other-password' } });
    fireEvent.click(screen.getByTestId('key-download-ok'));
    expect(await screen.findByText('The passwords do not match')).toBeTruthy();
    expect(seen.some((config) => config.url === api.cert.downloadKey.path)).toBe(false);

    fireEvent.change(screen.getByTestId('key-password-confirm'), { target: { value: 'long-password' } });
    fireEvent.click(screen.getByTestId('key-download-ok'));
    await waitFor(() => expect(seen.some((config) => config.url === api.cert.downloadKey.path)).toBe(true));
    expect(bodyOf(seen.find((config) => config.url === api.cert.downloadKey.path))).toEqual({
      id: certs[5]?.id,
      kind: 'key-pkcs12',
      password: 'long-password',
    });
    await waitFor(() => expect(click).toHaveBeenCalled());
    click.mockRestore();
  });
});
