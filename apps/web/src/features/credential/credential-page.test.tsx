import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api, Code, type CredentialRow } from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { saveSignedIn } from '../../api/session';
import { i18n } from '../../i18n/i18n';
import { envelope, signedInFixture } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import CredentialPage from './credential-page';
import { answerWith, signedInEachTest } from '../../test-session';

const PATH = '/credential/cred/index';
const ALL = ['credential:read', 'credential:write', 'credential:use'];

const row: CredentialRow = {
  id: '0190d5a4-0000-7000-8000-000000000001',
  name: 'db-root',
  description: 'database root',
  tags: ['prod'],
  type: 'password',
  server_id: null,
  expires_at: null,
  expired: false,
  rotation_days: 90,
  current_version: 2,
  created_by: 'admin',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-02T00:00:00.000Z',
};
const versions = [
  { version: 2, current: true, created_by: 'admin', created_at: '2026-01-02T00:00:00.000Z' },
  { version: 1, current: false, created_by: 'admin', created_at: '2026-01-01T00:00:00.000Z' },
];

function serve() {
  return answerWith((config: InternalAxiosRequestConfig) => {
    const body = config.data ? (JSON.parse(String(config.data)) as Record<string, unknown>) : {};
    switch (config.url) {
      case api.credential.list.path:
        return envelope({ data: [row], total: 1 });
      case api.credential.detail.path:
        return envelope({ ...row, versions });
      case api.credential.generatePassword.path:
        return envelope({ password: 'Gen3rated!Passw0rd' });
      case api.credential.create.path:
        return body.type === 'ssh-private-key'
          ? envelope(
              null,
              Code.INVALID,
              'value: not a PEM private key that can be read (no PRIVATE KEY block)',
            )
          : envelope({
              ...row,
              id: '0190d5a4-0000-7000-8000-000000000002',
              name: body.name,
              current_version: 1,
            });
      case api.credential.reveal.path:
        return body.password === 'Admin-Pass-1'
          ? envelope({
              id: row.id,
              name: row.name,
              type: row.type,
              version: body.version,
              value: `secret-v${String(body.version)}`,
            })
          : envelope(null, Code.INVALID, 'password: incorrect password');
      case api.credential.delete.path:
        return envelope({ deleted: 1 });
      default:
        return envelope(null, Code.NOT_FOUND, 'Not served');
    }
  });
}
const sent = (seen: InternalAxiosRequestConfig[], url: string) =>
  seen.filter((c) => c.url === url).map((c) => JSON.parse(String(c.data)) as unknown);

signedInEachTest({ permissions: ALL });
afterEach(() => {
  vi.useRealTimers();
});

const open = async () => {
  renderPage(PATH, PATH, <CredentialPage />);
  await screen.findByTestId('cred-open-db-root');
};

describe('credentials page', () => {
  it('creates a password credential with a generated password, and shows a refused value in the form', async () => {
    const seen = serve();
    await open();
    fireEvent.click(screen.getByTestId('cred-add'));
    fireEvent.change(await screen.findByTestId('cred-name'), { target: { value: 'svc-login' } });
    fireEvent.click(screen.getByTestId('cred-generate'));
    await waitFor(() =>
      expect(screen.getByTestId<HTMLInputElement>('cred-value').value).toBe('Gen3rated!Passw0rd'),
    );
    fireEvent.click(screen.getByTestId('cred-create-ok'));
    await waitFor(() => expect(sent(seen, api.credential.create.path)).toHaveLength(1));
    expect(sent(seen, api.credential.create.path)[0]).toMatchObject({
      name: 'svc-login',
      type: 'password',
      value: 'Gen3rated!Passw0rd',
      tags: [],
      expires_at: null,
    });
    expect(sent(seen, api.credential.generatePassword.path)[0]).toEqual({
      length: 20,
      lower: true,
      upper: true,
      digits: true,
      symbols: true,
    });
  });

  it('reveals a version after the password, refuses a wrong one, and hides the value after 30 seconds', async () => {
    const seen = serve();
    await open();
    fireEvent.click(screen.getByTestId('cred-open-db-root'));
    fireEvent.click(await screen.findByTestId('cred-reveal-v1'));
    fireEvent.change(await screen.findByTestId('cred-reveal-password'), { target: { value: 'wrong' } });
    fireEvent.click(screen.getByTestId('cred-reveal-ok'));
    expect((await screen.findByTestId('cred-reveal-refusal')).textContent).toBe(
      'password: incorrect password',
    );
    // The button stays disabled for the re-click lock after the refused submit.
    await waitFor(
      () => expect(screen.getByTestId<HTMLButtonElement>('cred-reveal-ok').disabled).toBe(false),
      {
        timeout: 5000,
      },
    );
    fireEvent.change(screen.getByTestId('cred-reveal-password'), { target: { value: 'Admin-Pass-1' } });
    vi.useFakeTimers({ shouldAdvanceTime: true });
    fireEvent.click(screen.getByTestId('cred-reveal-ok'));
    expect((await screen.findByTestId('cred-reveal-value')).textContent).toBe('secret-v1');
    expect(screen.getByTestId('cred-reveal-copy')).toBeTruthy();
    expect(sent(seen, api.credential.reveal.path).at(-1)).toEqual({
      id: row.id,
      version: 1,
      password: 'Admin-Pass-1',
    });
    act(() => {
      vi.advanceTimersByTime(31_000);
    });
    await waitFor(() => expect(screen.queryByTestId('cred-reveal-value')).toBeNull());
    expect(screen.getByTestId('cred-reveal-hidden')).toBeTruthy();
  });

  it('deletes after a confirmation that says it cannot be undone', async () => {
    const seen = serve();
    await open();
    fireEvent.click(screen.getByTestId('cred-delete-db-root'));
    expect(await screen.findByText(/This cannot be undone/)).toBeTruthy();
    fireEvent.click(screen.getByTestId('cred-delete-ok'));
    await waitFor(() => expect(sent(seen, api.credential.delete.path)).toEqual([{ ids: [row.id] }]));
  });

  it('offers no add, delete or reveal to a reader', async () => {
    saveSignedIn(signedInFixture({ permissions: ['credential:read'] }));
    serve();
    await open();
    expect(screen.queryByTestId('cred-add')).toBeNull();
    expect(screen.queryByTestId('cred-delete-db-root')).toBeNull();
    fireEvent.click(screen.getByTestId('cred-open-db-root'));
    const drawer = await screen.findByTestId('cred-versions');
    expect(within(drawer).queryByTestId('cred-reveal-v1')).toBeNull();
  });

  it('speaks Chinese', async () => {
    serve();
    await i18n.changeLanguage('zh');
    try {
      await open();
      expect(screen.getAllByText('密码').length).toBeGreaterThan(0);
      fireEvent.click(screen.getByTestId('cred-open-db-root'));
      expect(await screen.findByText('凭据 db-root')).toBeTruthy();
      // antd spaces two-character button labels ("查 看").
      expect((await screen.findByTestId('cred-reveal-v1')).textContent?.replace(/\s/g, '')).toBe('查看');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
