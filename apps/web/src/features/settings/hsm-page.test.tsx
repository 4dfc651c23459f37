import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { api, Code, type HsmStatus } from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { i18n } from '../../i18n/i18n';
import { envelope } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import HsmPage from './hsm-page';
import { answerWith, signedInEachTest } from '../../test-session';

const PATH = '/console/setting/hsm';
const LIB = '/usr/lib/softhsm/libsofthsm2.so';

const unbound: HsmStatus = {
  root_provider: 'seal-file',
  bound: false,
  configured: false,
  seal_file: '/var/lib/ksp/seal.key',
  library: null,
  slot_serial: null,
  token_label: null,
  key_label: null,
  bound_at: null,
  hsm_certificate: null,
  client_certificate: null,
  client_private_key_set: false,
  server_certificate: null,
  updated_at: null,
};
const bound: HsmStatus = {
  ...unbound,
  root_provider: 'pkcs11',
  bound: true,
  configured: true,
  seal_file: null,
  library: LIB,
  slot_serial: '7a9533dc71546105',
  token_label: 'ksp',
  key_label: 'ksp-root-of-trust',
  bound_at: '2026-11-24T10:00:00.000Z',
  updated_at: '2026-11-24T10:00:00.000Z',
};

function serve(initial: HsmStatus = unbound) {
  let state = initial;
  return answerWith((config: InternalAxiosRequestConfig) => {
    const body = config.data ? (JSON.parse(String(config.data)) as Record<string, string>) : {};
    if (config.url === api.hsm.status.path) return envelope(state);
    if (config.url === api.hsm.test.path) {
      if (body.library === '/nope.so')
        return envelope(null, Code.INVALID, 'library: the PKCS#11 library /nope.so cannot be loaded');
      return envelope({
        ok: true,
        slot_serial: bound.slot_serial,
        token_label: 'ksp',
        manufacturer: 'SoftHSM project',
        model: 'SoftHSM v2',
        key_label: 'ksp-root-of-trust',
        key_sensitive: true,
        key_extractable: false,
        key_created: true,
      });
    }
    if (config.url === api.hsm.bind.path) {
      state = bound;
      return envelope(bound);
    }
    if (config.url === api.hsm.certificates.path) {
      if (body.hsm_certificate === 'garbage')
        return envelope(null, Code.INVALID, 'hsm_certificate: not a valid PEM certificate');
      state = { ...state, ...body, client_private_key_set: Boolean(body.client_private_key) };
      return envelope(state);
    }
    if (config.url === api.hsm.unbind.path) {
      state = unbound;
      return envelope(unbound);
    }
    return envelope(null, Code.NOT_FOUND, 'Not served');
  });
}

signedInEachTest({ permissions: ['hsm:read', 'hsm:write'] });
afterEach(async () => {
  await i18n.changeLanguage('en');
});

const open = async () => {
  renderPage(PATH, PATH, <HsmPage />);
  await screen.findByTestId('hsm-state');
};
const fill = (testId: string, value: string) =>
  fireEvent.change(screen.getByTestId(testId), { target: { value } });

describe('HSM page', () => {
  it('tests a round trip, shows a refusal naming the field, then binds and shows the token', async () => {
    const seen = serve();
    await open();
    expect(screen.getByTestId('hsm-state').textContent).toMatch(/seal file \/var\/lib\/ksp\/seal.key/);
    // Nothing typed: refused before anything is sent.
    fireEvent.click(screen.getByTestId('hsm-test'));
    expect(await screen.findByText('Enter PKCS#11 library')).toBeTruthy();
    fill('hsm-library', '/nope.so');
    fill('hsm-token-label', 'ksp');
    fill('hsm-pin', '123456');
    fireEvent.click(screen.getByTestId('hsm-test'));
    expect((await screen.findByTestId('hsm-outcome')).textContent).toMatch(/^library: the PKCS#11 library/);
    fill('hsm-library', LIB);
    await waitFor(() => expect(screen.getByTestId('hsm-test').hasAttribute('disabled')).toBe(false), {
      timeout: 5000,
    });
    fireEvent.click(screen.getByTestId('hsm-test'));
    expect((await screen.findByTestId('hsm-outcome')).textContent).toMatch(
      /Round trip succeeded on token ksp \(7a9533dc71546105\): key ksp-root-of-trust is sensitive and not extractable/,
    );
    await waitFor(() => expect(screen.getByTestId('hsm-bind').hasAttribute('disabled')).toBe(false), {
      timeout: 5000,
    });
    fireEvent.click(screen.getByTestId('hsm-bind'));
    fireEvent.click(await screen.findByTestId('hsm-bind-ok'));
    await waitFor(() => expect(screen.getByTestId('hsm-state').textContent).toMatch(/HSM token ksp/));
    expect(screen.getByTestId('hsm-serial').textContent).toBe('7a9533dc71546105');
    const binds = seen
      .filter((c) => c.url === api.hsm.bind.path)
      .map((c) => JSON.parse(String(c.data)) as unknown);
    expect(binds).toEqual([
      { library: LIB, token_label: 'ksp', pin: '123456', key_label: 'ksp-root-of-trust' },
    ]);
  });

  it('fills the stored settings, shows a certificate refusal naming the field, keeps the stored private key', async () => {
    const seen = serve(bound);
    await open();
    await waitFor(() => expect(screen.getByTestId<HTMLInputElement>('hsm-library').value).toBe(LIB));
    expect(screen.getByTestId<HTMLInputElement>('hsm-slot-serial').value).toBe('7a9533dc71546105');
    expect(screen.getByTestId<HTMLInputElement>('hsm-pin').value).toBe('');
    fill('hsm-hsm-certificate', 'garbage');
    fireEvent.click(screen.getByTestId('hsm-save-certs'));
    expect((await screen.findByTestId('hsm-cert-refusal')).textContent).toBe(
      'hsm_certificate: not a valid PEM certificate',
    );
    // No PIN typed: "test" runs on the stored settings.
    fireEvent.click(screen.getByTestId('hsm-test'));
    await screen.findByTestId('hsm-outcome');
    const tests = seen
      .filter((c) => c.url === api.hsm.test.path)
      .map((c) => JSON.parse(String(c.data)) as unknown);
    expect(tests).toEqual([{}]);
    // Without a new key typed, the stored one is kept (not sent).
    const certs = seen
      .filter((c) => c.url === api.hsm.certificates.path)
      .map((c) => JSON.parse(String(c.data)) as object);
    expect(certs[0]).not.toHaveProperty('client_private_key');
  });

  it('speaks Chinese', async () => {
    serve();
    await i18n.changeLanguage('zh');
    await open();
    expect(screen.getByTestId('hsm-state').textContent).toMatch(/根密钥由本地封存文件/);
    expect(screen.getAllByText('设备唯一标识').length).toBeGreaterThan(0);
    expect(screen.getByTestId('hsm-bind').textContent).toBe('绑 定');
  });
});
