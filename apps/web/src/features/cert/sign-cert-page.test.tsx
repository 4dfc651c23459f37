import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { api } from '@ksp/contracts';
import { http, resetClient } from '../../api/client';
import { envelope, fakeAdapter, type FakeReply } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import SignCertPage from './sign-cert-page';
import { restoreAdapterAfterEach } from '../../test-session';

const CSR = '-----BEGIN CERTIFICATE REQUEST-----\nMIIBszCCAVkCAQAw\n-----END CERTIFICATE REQUEST-----';
const issued = {
  certificate_pem: '-----BEGIN CERTIFICATE-----\nLEAF\n-----END CERTIFICATE-----\n',
  chain_pem: ['-----BEGIN CERTIFICATE-----\nROOT\n-----END CERTIFICATE-----\n'],
  p7b: 'MIIB',
  serial: '5a17e0c3b2a1f0e9d8c7',
  not_after: '2027-11-24T00:00:00Z',
  remaining: 4,
};

function serve(reply: () => FakeReply) {
  const fake = fakeAdapter((config) => (config.url === api.cert.sign.path ? reply() : envelope(null)));
  http.defaults.adapter = fake.adapter;
  return fake.seen;
}

const saved: string[] = [];

restoreAdapterAfterEach();
beforeEach(() => {
  resetClient();
  saved.length = 0;
  URL.createObjectURL = vi.fn(() => 'blob:cert');
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push(this.download);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

function fill(token: string, csr: string) {
  fireEvent.change(screen.getByTestId('sign-token'), { target: { value: token } });
  fireEvent.change(screen.getByTestId('sign-csr'), { target: { value: csr } });
  fireEvent.click(screen.getByTestId('sign-submit'));
}

describe('/sign-cert', () => {
  it('issues from a token and a CSR, shows the result and saves the three files', async () => {
    const seen = serve(() => envelope(issued));
    renderPage('/sign-cert', '/sign-cert', <SignCertPage />, { '/login': 'login page' });
    expect(await screen.findByText('Online certificate issuing')).toBeTruthy();
    fill(' secret-1 ', CSR);
    expect(await screen.findByTestId('sign-result')).toBeTruthy();
    expect(JSON.parse(String(seen.find((config) => config.url === api.cert.sign.path)?.data))).toEqual({
      token: 'secret-1',
      csr: CSR,
    });
    expect(screen.getByTestId('sign-serial').textContent).toContain(issued.serial);
    expect(screen.getByTestId('sign-remaining').textContent).toBe('4');

    fireEvent.click(screen.getByTestId('sign-download-cert'));
    fireEvent.click(screen.getByTestId('sign-download-chain'));
    fireEvent.click(screen.getByTestId('sign-download-p7b'));
    expect(saved).toEqual([
      'certificate-5a17e0c3b2a1f0e9.pem',
      'certificate-5a17e0c3b2a1f0e9-chain.pem',
      'certificate-5a17e0c3b2a1f0e9.p7b',
    ]);
    expect(screen.getByRole('link').getAttribute('href')).toBe('/login');
  });

  it('never sends a private key, nor text that is not a request', async () => {
    const seen = serve(() => envelope(issued));
    renderPage('/sign-cert', '/sign-cert', <SignCertPage />);
    await screen.findByTestId('sign-form');
    fill('secret-1', '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----');
    expect(await screen.findByText(/This is a private key/)).toBeTruthy();
    fill('secret-1', 'hello');
    expect(await screen.findByText(/Not a PEM certificate request/)).toBeTruthy();
    expect(seen.some((config) => config.url === api.cert.sign.path)).toBe(false);
  });

  it('shows the server refusal on the page (an exhausted token), and the rate limit', async () => {
    let reply: FakeReply = envelope(null, 4003, "Registration token 'lab' has no uses left");
    serve(() => reply);
    renderPage('/sign-cert', '/sign-cert', <SignCertPage />);
    await screen.findByTestId('sign-form');
    fill('secret-1', CSR);
    expect((await screen.findByTestId('sign-error')).textContent).toContain(
      "Registration token 'lab' has no uses left",
    );

    reply = { status: 429, data: { code: 4290, msg: 'Too Many Requests', data: null } };
    await new Promise((resolve) => setTimeout(resolve, 2100)); // the re-click lock
    fireEvent.click(screen.getByTestId('sign-submit'));
    await waitFor(() =>
      expect(screen.getByTestId('sign-error').textContent).toContain('Too many requests: wait a minute'),
    );
  });
});
