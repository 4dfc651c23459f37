import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { InternalAxiosRequestConfig } from 'axios';
import { api } from '@ksp/contracts';
import { saveSignedIn } from '../../api/session';
import { changeLanguage } from '../../i18n/i18n';
import { envelope, signedInFixture, userRowFixture } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import LocalCertPage from './local-page';
import { certRow } from './cert-test-fixtures';
import { answerWith, signedInEachTest } from '../../test-session';
import { choose } from '../../test-select';

const BRIDGE = 'http://127.0.0.1:5555';
const PIN = '246810';
const ALICE = { id: '55555555-5555-4555-8555-555555555555', username: 'alice' };
const userRow = userRowFixture({ ...ALICE, email: 'alice@example.com' });
const CSR = '-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----';

const detail = (name: string, serial: string) => ({
  ...certRow({ name, source: 'ukey', serial, cn: 'alice', subject: 'CN=alice' }),
  certificate_pem: `PEM of ${name}`,
  chain_pem: [],
  csr_pem: null,
  key_usage: [],
  ext_key_usage: [],
});
const signing = detail('UKEY UK-7 signing', '0a0b0c');
const encryption = detail('UKEY UK-7 encryption', '0d0e0f');

/** Bridge calls and server calls, in the order they happened. */
let log: string[] = [];

function serve({ ukeyCerts = [signing] }: { ukeyCerts?: unknown[] } = {}) {
  return answerWith((config) => {
    log.push(`server ${config.url ?? ''}`);
    switch (config.url) {
      case api.config.outlist.path:
        return envelope([{ key: 'UKEY_BRIDGE', value: `${BRIDGE}/` }]);
      case api.cert.caList.path:
        return envelope({ data: [], total: 0 });
      case api.cert.list.path: {
        const params = config.params as Record<string, unknown> | undefined;
        const rows = params?.source === 'ukey' ? ukeyCerts : [certRow({ name: 'web' })];
        return envelope({ data: rows, total: rows.length });
      }
      case api.user.list.path:
        return envelope({ data: [userRow], total: 1 });
      case api.cert.ukeyIssue.path: {
        const body = JSON.parse(String(config.data)) as { spec: string };
        return envelope({
          signing,
          encryption: body.spec === 'dual' ? encryption : null,
          enveloped_key: body.spec === 'dual' ? 'RU5WRUxPUEVE' : null,
          chain_pem: ['CA PEM'],
        });
      }
      default:
        return envelope(null);
    }
  });
}

const json = (status: number, body: unknown) =>
  Promise.resolve(
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }),
  );

type BridgeAnswers = Partial<Record<string, () => Promise<Response>>>;

/** The bridge: GET /status, POST /keygen and POST /install, unless `answers` says otherwise. */
function bridge(answers: BridgeAnswers = {}) {
  const fetchMock = vi.fn((url: string, init?: RequestInit) => {
    const path = url.replace(BRIDGE, '');
    log.push(`bridge ${path}`);
    const own = answers[path];
    if (own) return own();
    switch (path) {
      case '/status':
        return json(200, { tokens: [{ serial: 'UK-7', label: 'ksp-ukey' }] });
      case '/keygen':
        return json(200, { serial: 'UK-7', key_id: '01', csr: CSR });
      case '/install': {
        const body = JSON.parse(init?.body as string) as { encryption_certificate?: string };
        return json(200, {
          serial: 'UK-7',
          installed: body.encryption_certificate ? ['signing', 'encryption'] : ['signing'],
        });
      }
      default:
        return json(404, { error: 'Unknown path' });
    }
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const bridgeBodies = (fetchMock: ReturnType<typeof bridge>, path: string) =>
  fetchMock.mock.calls
    .filter(([url]) => url === `${BRIDGE}${path}`)
    .map(([, init]) => JSON.parse(init?.body as string) as Record<string, unknown>);

const serverCalls = (seen: InternalAxiosRequestConfig[], path: string) => seen.filter((c) => c.url === path);

signedInEachTest({ permissions: ['cert:read', 'cert:write', 'user:read', 'user:write'] });
beforeEach(() => {
  log = [];
});
afterEach(async () => {
  vi.unstubAllGlobals();
  await changeLanguage('en');
});

async function openForm() {
  const view = renderPage('/console/cert/local?tab=ukey', '/console/cert/local', <LocalCertPage />);
  fireEvent.click(await screen.findByTestId('ukey-issue-open'));
  await screen.findByTestId('ukey-issue-form');
  return view;
}

/** Fills the form for alice with the token the bridge lists (picked for us: the only one). */
async function fill({
  algorithm,
  dual = false,
  pin = PIN,
  confirm = pin,
}: {
  algorithm: 'RSA-2048' | 'SM2';
  dual?: boolean;
  pin?: string;
  confirm?: string;
}) {
  await choose('ukey-user', 'alice');
  fireEvent.click(screen.getByTestId(`ukey-algorithm-${algorithm}`));
  if (dual) fireEvent.click(await screen.findByTestId('ukey-spec-dual'));
  await waitFor(() => expect(screen.getByTitle('ksp-ukey (UK-7)')).toBeTruthy());
  fireEvent.change(screen.getByTestId('ukey-pin'), { target: { value: pin } });
  fireEvent.change(screen.getByTestId('ukey-pin-confirm'), { target: { value: confirm } });
}

describe('local certificates page: the tab is in the URL', () => {
  it('opens the tab of the URL, writes the chosen one there, and the lists keep it', async () => {
    const seen = serve();
    bridge();
    const { router } = renderPage('/console/cert/local', '/console/cert/local', <LocalCertPage />);
    await screen.findByTestId('cert-row-web');

    fireEvent.click(screen.getByTestId('tab-ukey'));
    await screen.findByTestId('cert-row-UKEY UK-7 signing');
    expect(router.state.location.search).toBe('?tab=ukey');
    // The UKEY tab asks for the UKEY certificates only.
    expect(serverCalls(seen, api.cert.list.path).at(-1)?.params).toMatchObject({ source: 'ukey' });

    // Searching the list keeps the tab.
    fireEvent.change(screen.getByTestId('cert-filter-name'), { target: { value: 'UK-7' } });
    fireEvent.click(screen.getByTestId('cert-search'));
    await waitFor(() => expect(new URLSearchParams(router.state.location.search).get('name')).toBe('UK-7'));
    expect(new URLSearchParams(router.state.location.search).get('tab')).toBe('ukey');

    // Another tab starts without the filters of the one left.
    fireEvent.click(screen.getByTestId('tab-cas'));
    await waitFor(() => expect(router.state.location.search).toBe('?tab=cas'));
    fireEvent.click(screen.getByTestId('tab-certs'));
    await waitFor(() => expect(router.state.location.search).toBe(''));
    await screen.findByTestId('cert-row-web');

    // "Back" returns to the tab before.
    await router.navigate(-1);
    await waitFor(() => expect(router.state.location.search).toBe('?tab=cas'));
    await waitFor(() =>
      expect(screen.getByTestId('tab-cas').closest('.ant-tabs-tab')?.className).toContain(
        'ant-tabs-tab-active',
      ),
    );
  });

  it('a reader sees the UKEY certificates but no button to issue one', async () => {
    saveSignedIn(signedInFixture({ permissions: ['cert:read'] }));
    serve();
    bridge();
    renderPage('/console/cert/local?tab=ukey', '/console/cert/local', <LocalCertPage />);
    await screen.findByTestId('cert-row-UKEY UK-7 signing');
    expect(screen.queryByTestId('ukey-issue-open')).toBeNull();
  });
});

describe('the UKEY certificate form', () => {
  it('offers dual certificates for SM2 only, and RSA-2048 goes back to single', async () => {
    serve();
    bridge();
    await openForm();
    expect(screen.getByTestId('ukey-spec-single')).toBeTruthy();
    expect(screen.queryByTestId('ukey-spec-dual')).toBeNull();
    fireEvent.click(screen.getByTestId('ukey-algorithm-SM2'));
    fireEvent.click(await screen.findByTestId('ukey-spec-dual'));
    fireEvent.click(screen.getByTestId('ukey-algorithm-RSA-2048'));
    await waitFor(() => expect(screen.queryByTestId('ukey-spec-dual')).toBeNull());
    fireEvent.click(screen.getByTestId('ukey-algorithm-SM2'));
    // Back on SM2, the spec is single again until dual is chosen.
    const dual = await screen.findByTestId('ukey-spec-dual');
    expect((dual.closest('label')?.querySelector('input') as HTMLInputElement).checked).toBe(false);
  });

  it.each([
    ['en', 'PIN cannot be less than 6 characters', 'The two PINs you entered do not match'],
    ['zh', 'PIN 码不能少于 6 个字符', '两次输入的 PIN 不一致'],
  ] as const)(
    'refuses a short PIN and a confirmation that differs (%s)',
    async (language, short, mismatch) => {
      await changeLanguage(language);
      serve();
      const fetchMock = bridge();
      await openForm();
      await fill({ algorithm: 'RSA-2048', pin: '12345', confirm: '12345' });
      fireEvent.click(screen.getByTestId('ukey-issue-ok'));
      expect(await screen.findByText(short)).toBeTruthy();

      fireEvent.change(screen.getByTestId('ukey-pin'), { target: { value: PIN } });
      fireEvent.change(screen.getByTestId('ukey-pin-confirm'), { target: { value: '135791' } });
      fireEvent.click(screen.getByTestId('ukey-issue-ok'));
      expect(await screen.findByText(mismatch)).toBeTruthy();
      expect(bridgeBodies(fetchMock, '/keygen')).toEqual([]);
    },
  );

  it('makes the key on the UKEY, has the server issue dual SM2 certificates, writes them to the UKEY', async () => {
    const seen = serve({ ukeyCerts: [signing, encryption] });
    const fetchMock = bridge();
    await openForm();
    await fill({ algorithm: 'SM2', dual: true });
    fireEvent.change(screen.getByTestId('ukey-validity'), { target: { value: '730' } });
    log = [];
    fireEvent.click(screen.getByTestId('ukey-issue-ok'));
    await screen.findByTestId('ukey-issued');

    // The three steps, in order (the list refreshes after).
    expect(
      log
        .filter((entry) => !entry.includes(api.cert.list.path) && !entry.includes(api.cert.caList.path))
        .slice(0, 3),
    ).toEqual(['bridge /keygen', `server ${api.cert.ukeyIssue.path}`, 'bridge /install']);
    expect(bridgeBodies(fetchMock, '/keygen')).toEqual([
      { pin: PIN, serial: 'UK-7', algorithm: 'SM2', common_name: 'alice' },
    ]);
    const issue = serverCalls(seen, api.cert.ukeyIssue.path);
    expect(issue).toHaveLength(1);
    expect(JSON.parse(String(issue[0]?.data))).toEqual({
      user_id: ALICE.id,
      ukey_type: 'PKCS#11',
      algorithm: 'SM2',
      spec: 'dual',
      serial: 'UK-7',
      csr: CSR,
      validity_days: 730,
    });
    // The PIN goes to the bridge only.
    for (const config of seen) {
      expect(JSON.stringify(config.data ?? '')).not.toContain(PIN);
      expect(JSON.stringify(config.params ?? '')).not.toContain(PIN);
    }
    expect(bridgeBodies(fetchMock, '/install')).toEqual([
      {
        pin: PIN,
        serial: 'UK-7',
        key_id: '01',
        certificate: 'PEM of UKEY UK-7 signing',
        encryption_certificate: 'PEM of UKEY UK-7 encryption',
        enveloped_key: 'RU5WRUxPUEVE',
      },
    ]);

    // Both certificates are shown, and that the UKEY is bound.
    expect(within(screen.getByTestId('ukey-issued-signing')).getByText('CN=alice')).toBeTruthy();
    expect(screen.getByTestId('ukey-issued-encryption')).toBeTruthy();
    expect(screen.getByText(/The UKEY is now bound to alice/)).toBeTruthy();
    // The list was asked again.
    await waitFor(() =>
      expect(log.filter((entry) => entry === `server ${api.cert.list.path}`).length).toBeGreaterThan(0),
    );
  });

  it('a single RSA certificate sends no encryption certificate to the UKEY', async () => {
    serve();
    const fetchMock = bridge();
    await openForm();
    await fill({ algorithm: 'RSA-2048' });
    fireEvent.click(screen.getByTestId('ukey-issue-ok'));
    await screen.findByTestId('ukey-issued');
    expect(bridgeBodies(fetchMock, '/install')).toEqual([
      { pin: PIN, serial: 'UK-7', key_id: '01', certificate: 'PEM of UKEY UK-7 signing' },
    ]);
    expect(screen.queryByTestId('ukey-issued-encryption')).toBeNull();
  });

  it('after a failed write, offers to write again, which repeats only the writing', async () => {
    const seen = serve();
    let installs = 0;
    const fetchMock = bridge({
      '/install': () => {
        installs += 1;
        return installs === 1
          ? json(500, { error: 'CKR_DEVICE_ERROR' })
          : json(200, { serial: 'UK-7', installed: ['signing'] });
      },
    });
    await openForm();
    await fill({ algorithm: 'RSA-2048' });
    fireEvent.click(screen.getByTestId('ukey-issue-ok'));
    const error = await screen.findByTestId('ukey-issue-error');
    expect(error.textContent).toContain('The certificates were issued and the UKEY is bound to the user');
    expect(error.textContent).toContain('CKR_DEVICE_ERROR');
    expect(screen.getByTestId('ukey-step-install').getAttribute('data-status')).toBe('error');

    fireEvent.click(screen.getByTestId('ukey-install-retry'));
    await screen.findByTestId('ukey-issued');
    expect(bridgeBodies(fetchMock, '/keygen')).toHaveLength(1);
    expect(serverCalls(seen, api.cert.ukeyIssue.path)).toHaveLength(1);
    expect(bridgeBodies(fetchMock, '/install')).toHaveLength(2);
  });

  it("stops at the key step on a wrong PIN, with the UKEY's words, and asks the server nothing", async () => {
    const seen = serve();
    bridge({ '/keygen': () => json(401, { error: 'The PIN is incorrect' }) });
    await openForm();
    await fill({ algorithm: 'RSA-2048' });
    fireEvent.click(screen.getByTestId('ukey-issue-ok'));
    const error = await screen.findByTestId('ukey-issue-error');
    expect(error.textContent).toContain('The UKEY did not make the key pair: The PIN is incorrect');
    expect(screen.getByTestId('ukey-step-keygen').getAttribute('data-status')).toBe('error');
    expect(serverCalls(seen, api.cert.ukeyIssue.path)).toEqual([]);
  });

  it('says where the bridge was expected when nothing answers, and tries again', async () => {
    serve();
    let up = false;
    const fetchMock = bridge({
      '/status': () =>
        up
          ? json(200, { tokens: [{ serial: 'UK-7', label: 'ksp-ukey' }] })
          : Promise.reject(new TypeError('Failed to fetch')),
    });
    await openForm();
    expect((await screen.findByTestId('ukey-bridge-error')).textContent).toContain(
      `The UKEY bridge is not reachable at ${BRIDGE}`,
    );
    up = true;
    fireEvent.click(screen.getByTestId('ukey-bridge-retry'));
    await waitFor(() => expect(screen.queryByTestId('ukey-bridge-error')).toBeNull());
    expect(fetchMock.mock.calls.filter(([url]) => url === `${BRIDGE}/status`)).toHaveLength(2);
  });
});
