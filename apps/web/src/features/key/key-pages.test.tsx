import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { InternalAxiosRequestConfig } from 'axios';
import { api, Usage } from '@ksp/contracts';
import { envelope } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import KeyDetailPage from './key-detail-page';
import KeyListPage from './key-list-page';
import { keyRow } from './key-test-fixtures';
import { answerWith, signedInEachTest } from '../../test-session';

// Whole antd pages render here: on a loaded shared machine the first one can take seconds.

const PRIVATE_ID = '0c6f7a3e-2b1d-4e5f-8a9b-1c2d3e4f5a6b';
const PUBLIC_ID = '9d8c7b6a-5f4e-4d3c-8b2a-1a0b9c8d7e6f';

const rows = [
  keyRow({ exportable: true }),
  keyRow({
    id: PRIVATE_ID,
    name: 'signer',
    algorithm: 'ML-DSA-65',
    family: 'ML-DSA',
    object_type: 'private',
    size_bits: 192,
    usage_mask: 3,
    usages: ['sign', 'verify'],
    linked_key_id: PUBLIC_ID,
    pqc_parameter_set: 'ML-DSA-65',
    security_level: 3,
    state: 'compromised',
    state_label: 'disabled',
    kcv: null,
    fingerprint: 'ab'.repeat(32),
  }),
  keyRow({
    id: PUBLIC_ID,
    name: 'signer.pub',
    algorithm: 'ML-DSA-65',
    family: 'ML-DSA',
    object_type: 'public',
    usage_mask: 3,
    usages: ['sign', 'verify'],
    linked_key_id: PRIVATE_ID,
    state: 'compromised',
    state_label: 'disabled',
  }),
];

function bodyOf(config: InternalAxiosRequestConfig | undefined): unknown {
  return JSON.parse(String(config?.data));
}

function serve() {
  return answerWith((config) => {
    switch (config.url) {
      case api.key.list.path:
        return envelope({ data: rows, total: rows.length });
      case api.key.detail.path: {
        const id = (config.params as { id: string }).id;
        const found = rows.find((row) => row.id === id);
        return found ? envelope(found) : envelope(null, 4040, 'Key not found');
      }
      case api.key.versions.path:
        return envelope([
          {
            version: 2,
            kcv: 'C0FFEE',
            fingerprint: null,
            destroyed: false,
            created_at: '2026-01-11T00:00:00Z',
          },
          {
            version: 1,
            kcv: 'A1B2C3',
            fingerprint: null,
            destroyed: false,
            created_at: '2026-01-10T00:00:00Z',
          },
        ]);
      case api.key.audit.path:
        return envelope({
          data: [
            {
              id: '1',
              at: '2026-01-10T12:00:00Z',
              username: 'admin',
              action: 'key.add-version',
              result: 'success',
              source_ip: '127.0.0.1',
              count: 1,
            },
            {
              id: '2',
              at: '2026-01-10T12:00:01Z',
              username: 'app',
              action: 'crypto.encrypt',
              result: 'success',
              source_ip: '10.0.0.7',
              count: 16,
            },
          ],
          total: 2,
        });
      case api.key.create.path:
        return envelope(keyRow({ name: 'fresh' }));
      case api.key.export.path:
        return envelope({
          key_id: rows[0]?.id,
          version: 1,
          algorithm: 'AES-256',
          format: 'raw',
          wrapping: 'RSA-OAEP-SHA256',
          material: 'V1JBUFBFRA==',
          wrapped_kek: null,
        });
      case api.key.delete.path:
        return envelope({ deleted: 1 });
      case api.tdeDatabase.keyReaders.path:
        return envelope([]);
      default:
        return envelope(rows[0]);
    }
  });
}

const permissions = ['key:read', 'key:write', 'key:export'];

signedInEachTest({ permissions });

const rowOf = (name: string) => screen.getByTestId(`key-row-${name}`);

describe('key list page', () => {
  it('shows states with the compromised badge, links in its own area, and protects the public half', async () => {
    serve();
    renderPage('/kms/key', '/kms/key', <KeyListPage />);
    await screen.findByTestId('key-row-signer');
    expect(within(rowOf('billing')).getByText('In use')).toBeTruthy();
    expect(within(rowOf('signer')).getByText('Disabled')).toBeTruthy();
    expect(within(rowOf('signer')).getByText('Compromised')).toBeTruthy();
    expect(within(rowOf('signer')).getByText('NIST level 3')).toBeTruthy();
    // Usage tags come from the row's usage words.
    expect(within(rowOf('signer')).getByText('Sign')).toBeTruthy();
    expect(within(rowOf('signer')).getByText('Verify')).toBeTruthy();
    expect(within(rowOf('billing')).getByText('Wrap key')).toBeTruthy();
    expect(screen.getByTestId('key-link-signer').getAttribute('href')).toBe(`/kms/key/detail/${PRIVATE_ID}`);
    expect(within(rowOf('signer.pub')).getByRole('checkbox')).toHaveProperty('disabled', true);
    expect(within(rowOf('signer')).getByRole('checkbox')).toHaveProperty('disabled', false);
  });

  it('sends the URL filters, dropping values the contract refuses', async () => {
    const seen = serve();
    renderPage('/console/key?state=destroyed&algorithm=NOPE&usage=sign', '/console/key', <KeyListPage />);
    await screen.findByTestId('key-row-billing');
    const last = seen.filter((config) => config.url === api.key.list.path).at(-1);
    expect(last?.params).toEqual({ page: 1, page_size: 20, state: 'destroyed', usage: 'sign' });
  });

  it('batch delete needs a selection and warns that it cannot be undone', async () => {
    const seen = serve();
    renderPage('/console/key', '/console/key', <KeyListPage />);
    await screen.findByTestId('key-row-signer');
    fireEvent.click(screen.getByTestId('batch-delete'));
    expect(await screen.findByText('Please select at least 1 item!')).toBeTruthy();
    fireEvent.click(within(rowOf('signer')).getByRole('checkbox'));
    fireEvent.click(screen.getByTestId('batch-delete'));
    expect(await screen.findByText(/cannot be undone/)).toBeTruthy();
    fireEvent.click(screen.getByTestId('confirm-delete'));
    await waitFor(() => expect(seen.some((config) => config.url === api.key.delete.path)).toBe(true));
    expect(bodyOf(seen.find((config) => config.url === api.key.delete.path))).toEqual({ ids: [PRIVATE_ID] });
  });

  it('creates an AES-256 key with the usages of its profile, and refuses none', async () => {
    const seen = serve();
    renderPage('/console/key', '/console/key', <KeyListPage />);
    await screen.findByTestId('key-row-billing');
    fireEvent.click(screen.getByTestId('key-create'));
    fireEvent.change(await screen.findByTestId('key-name'), { target: { value: 'fresh' } });
    for (const name of ['Encrypt', 'Decrypt', 'WrapKey', 'UnwrapKey']) {
      fireEvent.click(screen.getByTestId(`usage-${name}`));
    }
    fireEvent.click(screen.getByTestId('key-form-ok'));
    expect(await screen.findByText('Please choose at least one usage')).toBeTruthy();
    expect(seen.some((config) => config.url === api.key.create.path)).toBe(false);

    fireEvent.click(screen.getByTestId('usage-Encrypt'));
    fireEvent.click(screen.getByTestId('usage-Decrypt'));
    fireEvent.click(screen.getByTestId('key-exportable'));
    fireEvent.click(screen.getByTestId('key-form-ok'));
    await waitFor(() => expect(seen.some((config) => config.url === api.key.create.path)).toBe(true));
    expect(bodyOf(seen.find((config) => config.url === api.key.create.path))).toEqual({
      name: 'fresh',
      algorithm: 'AES-256',
      usage_mask: 0xc,
      state: 'active',
      exportable: true,
      deletable: true,
      description: '',
      labels: {},
      cte: null,
    });
  });

  it('import refuses content that is not Base64', async () => {
    const seen = serve();
    renderPage('/console/key', '/console/key', <KeyListPage />);
    await screen.findByTestId('key-row-billing');
    fireEvent.click(screen.getByTestId('key-import'));
    fireEvent.change(await screen.findByTestId('key-name'), { target: { value: 'old' } });
    expect(screen.getByText('32 bytes of raw key material, Base64')).toBeTruthy();
    fireEvent.change(screen.getByTestId('key-content'), { target: { value: 'not base64!' } });
    fireEvent.click(screen.getByTestId('key-form-ok'));
    expect(await screen.findByText('Key content and encryption public key must be Base64')).toBeTruthy();
    expect(seen.some((config) => config.url === api.key.import.path)).toBe(false);
  });
});

/** Opens an antd Select by its test id and picks the option showing this text. */
async function choose(testId: string, text: string) {
  const select = screen.getByTestId(testId);
  const combobox = within(select.closest('.ant-select') ?? select).getByRole('combobox');
  fireEvent.mouseDown(combobox);
  // A searchable select (the algorithms) shows only what fits its list: narrow it first.
  if (!combobox.hasAttribute('readonly')) fireEvent.change(combobox, { target: { value: text } });
  const dropdown = await waitFor(() => {
    const open = [...document.querySelectorAll('.ant-select-dropdown:not(.ant-select-dropdown-hidden)')].at(
      -1,
    );
    if (!open) throw new Error('no open dropdown');
    return open as HTMLElement;
  });
  const option = [...dropdown.querySelectorAll('.ant-select-item-option')].find((item) =>
    item.textContent?.startsWith(text),
  );
  if (!option) throw new Error(`no option ${text}`);
  fireEvent.click(option);
}

describe('key import of a public key', () => {
  it('offers the formats of the algorithm, only the usages a public key honours, and sends the format', async () => {
    const seen = serve();
    renderPage('/console/key', '/console/key', <KeyListPage />);
    await screen.findByTestId('key-row-billing');
    fireEvent.click(screen.getByTestId('key-import'));
    fireEvent.change(await screen.findByTestId('key-name'), { target: { value: 'partner' } });
    await choose('key-algorithm', 'EC-P256');
    expect(await screen.findByText('Private key: PKCS#8 DER')).toBeTruthy();
    expect(screen.getByTestId('usage-Sign')).toBeTruthy();
    await choose('key-import-format', 'Public key: SubjectPublicKeyInfo DER');
    await waitFor(() => expect(screen.queryByTestId('usage-Sign')).toBeNull());
    expect(screen.getByText(/A public key alone verifies, encrypts or wraps/)).toBeTruthy();
    fireEvent.change(screen.getByTestId('key-content'), { target: { value: 'MFkwEwYHKoZIzj0CAQ==' } });
    fireEvent.click(screen.getByTestId('key-form-ok'));
    await waitFor(() => expect(seen.some((config) => config.url === api.key.import.path)).toBe(true));
    expect(bodyOf(seen.find((config) => config.url === api.key.import.path))).toMatchObject({
      name: 'partner',
      algorithm: 'EC-P256',
      format: 'spki',
      usage_mask: Usage.Verify,
      content: 'MFkwEwYHKoZIzj0CAQ==',
    });
  });

  it('takes PEM text as it is, and checks a post-quantum seed by its length', async () => {
    const seen = serve();
    renderPage('/console/key', '/console/key', <KeyListPage />);
    await screen.findByTestId('key-row-billing');
    fireEvent.click(screen.getByTestId('key-import'));
    fireEvent.change(await screen.findByTestId('key-name'), { target: { value: 'pq' } });
    await choose('key-algorithm', 'ML-DSA-44');
    expect(await screen.findByText('Private key: seed')).toBeTruthy();
    fireEvent.change(screen.getByTestId('key-content'), { target: { value: 'AAAA' } });
    fireEvent.click(screen.getByTestId('key-form-ok'));
    expect(await screen.findByText('The content must decode to 32 bytes; it has 3')).toBeTruthy();
    expect(screen.getByTestId('key-public-key')).toBeTruthy();
    fireEvent.change(screen.getByTestId('key-content'), {
      target: { value: Buffer.alloc(32, 7).toString('base64') },
    });
    fireEvent.click(screen.getByTestId('key-form-ok'));
    await waitFor(() => expect(seen.some((config) => config.url === api.key.import.path)).toBe(true));
    expect(bodyOf(seen.find((config) => config.url === api.key.import.path))).toMatchObject({
      algorithm: 'ML-DSA-44',
      format: 'seed',
      usage_mask: Usage.Sign | Usage.Verify,
    });

    fireEvent.click(screen.getByTestId('key-import'));
    fireEvent.change(await screen.findByTestId('key-name'), { target: { value: 'pem' } });
    await choose('key-algorithm', 'EC-P384');
    await choose('key-import-format', 'PEM text');
    fireEvent.change(screen.getByTestId('key-content'), { target: { value: 'MIGkAgEBBDA=' } });
    fireEvent.click(screen.getByTestId('key-form-ok'));
    expect(await screen.findByText(/Paste the PEM text/)).toBeTruthy();
  });
});

describe('key detail page', () => {
  it('shows the attributes, versions and audit trail of a post-quantum key', async () => {
    serve();
    renderPage(`/console/key/detail/${PRIVATE_ID}`, '/console/key/detail/:id', <KeyDetailPage />);
    await screen.findByTestId('key-detail');
    expect(screen.getByTestId('key-attr-securityLevel').textContent).toBe('NIST category 3 (≈ 192-bit)');
    expect(screen.getByTestId('key-attr-parameterSet').textContent).toBe('ML-DSA-65');
    expect(screen.getByTestId('key-attr-fingerprint').textContent).toBe('ab'.repeat(32));
    expect(screen.queryByTestId('key-attr-size')).toBeNull();
    expect(screen.getByTestId('key-attr-signatureFormat').textContent).toMatch(
      /^The standard encoding \(FIPS 204\/205\)/,
    );
    await waitFor(() => expect(screen.getByTestId('key-linked').textContent).toBe('signer.pub'));
    expect(screen.getByTestId('key-linked').getAttribute('href')).toBe(`/console/key/detail/${PUBLIC_ID}`);
    const versions = screen.getByTestId('key-versions');
    await waitFor(() => expect(within(versions).getByText('C0FFEE')).toBeTruthy());
    fireEvent.click(screen.getByRole('tab', { name: 'Audit trail' }));
    const audit = await screen.findByTestId('key-audit');
    await waitFor(() => expect(within(audit).getByText('Version added')).toBeTruthy());
    // A record of identical operations committed together says how many it stands for.
    const merged = within(audit).getByText('10.0.0.7').closest('tr')!;
    expect(within(merged as HTMLElement).getByText('16')).toBeTruthy();
    // A compromised key can be destroyed, never recovered.
    const actions = screen.getByTestId('key-detail-actions');
    expect(within(actions).queryByTestId('key-action-recover')).toBeNull();
    expect(within(actions).getByTestId('key-action-destroy')).toBeTruthy();
  });

  it('exports with a Base64-checked wrapping key and shows the wrapped material', async () => {
    const seen = serve();
    renderPage(`/console/key/detail/${rows[0]?.id ?? ''}`, '/console/key/detail/:id', <KeyDetailPage />);
    await screen.findByTestId('key-detail');
    fireEvent.click(within(screen.getByTestId('key-detail-actions')).getByTestId('key-action-export'));
    fireEvent.change(await screen.findByTestId('export-wrap-key'), { target: { value: 'AAEC=AwQ' } });
    fireEvent.click(screen.getByTestId('export-submit'));
    expect(await screen.findByText('Key content and encryption public key must be Base64')).toBeTruthy();
    fireEvent.change(screen.getByTestId('export-wrap-key'), {
      target: { value: '-----BEGIN PUBLIC KEY-----\nAAEC\nAwQF\n-----END PUBLIC KEY-----\n' },
    });
    fireEvent.click(screen.getByTestId('export-submit'));
    await screen.findByTestId('export-result');
    expect(bodyOf(seen.find((config) => config.url === api.key.export.path))).toEqual({
      id: rows[0]?.id,
      version: 1,
      wrap_public_key: 'AAECAwQF',
    });
    expect(screen.getByTestId<HTMLTextAreaElement>('export-material').value).toBe('V1JBUFBFRA==');
    expect(screen.getByTestId('export-wrapping').textContent).toBe('RSA-OAEP (SHA-256)');
  });

  it('shows the not-found page for a malformed id, without asking the server or showing its validation text', async () => {
    const seen = serve();
    renderPage('/console/key/detail/not-a-uuid', '/console/key/detail/:id', <KeyDetailPage />);
    expect(await screen.findByText('This key does not exist (any more)')).toBeTruthy();
    expect(screen.getByTestId('not-found')).toBeTruthy();
    expect(screen.getByTestId('key-back').getAttribute('href')).toBe('/console/key');
    expect(screen.queryByText(/must be a valid uuid/)).toBeNull();
    expect(seen.some((config) => config.url === api.key.detail.path)).toBe(false);
  });

  it('says when the key does not exist', async () => {
    serve();
    renderPage(
      '/kms/key/detail/4b3a2c1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d',
      '/kms/key/detail/:id',
      <KeyDetailPage />,
    );
    expect(await screen.findByText('This key does not exist (any more)')).toBeTruthy();
    expect(screen.getByTestId('not-found')).toBeTruthy();
    // The server's own words ("Key not found") are not the page's.
    expect(screen.queryByText('Key not found')).toBeNull();
    expect(screen.getByTestId('key-back').getAttribute('href')).toBe('/kms/key');
  });
});
