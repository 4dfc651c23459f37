import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { api, Code, type ServerRotation, type ServerRow, type ServerSession } from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { saveSignedIn } from '../../api/session';
import { i18n } from '../../i18n/i18n';
import { envelope, signedInFixture } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import AddServerPage from './add-server-page';
import ServerDetailPage from './server-detail-page';
import ServerListPage from './server-list-page';
import { answerWith, signedInEachTest } from '../../test-session';

// The player itself (asciinema-player) runs in the e2e test; here: what the page hands it.
vi.mock('./session-player', () => ({
  default: ({ cast }: { cast: string }) => <pre data-testid="session-player">{cast}</pre>,
}));

const ALL = ['credential:read', 'credential:write', 'credential:use'];
const ID = '0190d5a4-0000-7000-8000-0000000000a1';
const CRED = '0190d5a4-0000-7000-8000-0000000000c1';
const FP = `SHA256:${'a'.repeat(43)}`;
const OTHER_FP = `SHA256:${'b'.repeat(43)}`;

const row: ServerRow = {
  id: ID,
  name: 'web-1',
  description: '',
  host: '10.0.0.5',
  port: 22,
  os: 'linux',
  account: 'root',
  auth_type: 'password',
  credential_id: CRED,
  credential_name: 'web-1 root',
  host_key_fingerprint: FP,
  host_key_type: 'ssh-ed25519',
  rotation_enabled: true,
  rotation_days: 30,
  rotation_hour: 2,
  rotation_length: 24,
  rotation_lower: true,
  rotation_upper: true,
  rotation_digits: true,
  rotation_symbols: false,
  next_rotation_at: '2026-02-01T02:00:00.000Z',
  last_rotation_at: null,
  last_rotation_result: null,
  terminal_users: [],
  terminal_roles: [],
  created_by: 'admin',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};
const failure: ServerRotation = {
  id: '0190d5a4-0000-7000-8000-0000000000f1',
  at: '2026-01-03T00:00:00.000Z',
  trigger: 'schedule',
  by: 'scheduler',
  result: 'failure',
  version: null,
  error: 'Cannot reach 10.0.0.5:22 (ETIMEDOUT)',
};

const session: ServerSession = {
  id: '0190d5a4-0000-7000-8000-0000000000e1',
  user_name: 'alice',
  ip: '10.1.1.1',
  started_at: '2026-01-04T00:00:00.000Z',
  ended_at: '2026-01-04T00:02:05.000Z',
  status: 'ended',
  end_reason: 'idle',
  duration_s: 125,
  bytes_in: 12,
  bytes_out: 3400,
  recording_bytes: 3600,
  recording_truncated: true,
};
const CAST = '{"version":2,"width":80,"height":24}\n[0.5,"o","uid=0(root)\\r\\n"]\n';

function serve(opts: { hostKeyChanged?: boolean } = {}) {
  return answerWith((config: InternalAxiosRequestConfig) => {
    switch (config.url) {
      case api.sshServer.list.path:
        return envelope({ data: [row], total: 1 });
      case api.sshServer.detail.path:
        return envelope(row);
      case api.sshServer.rotations.path:
        return envelope({ data: [failure], total: 1 });
      case api.sshServer.sessions.path:
        return envelope({ data: [session], total: 1 });
      case api.sshServer.recording.path:
        return envelope({ session, server_id: ID, cast: CAST });
      case api.credential.list.path:
        return envelope({
          data: [
            {
              id: CRED,
              name: 'web-1 root',
              description: '',
              tags: [],
              type: 'password',
              server_id: null,
              expires_at: null,
              expired: false,
              rotation_days: null,
              current_version: 1,
              created_by: 'admin',
              created_at: row.created_at,
              updated_at: row.updated_at,
            },
          ],
          total: 1,
        });
      case api.sshServer.fetchFingerprint.path:
        return envelope({ fingerprint: FP, key_type: 'ssh-ed25519', pinned: null });
      case api.sshServer.create.path:
        return envelope(row);
      case api.sshServer.test.path:
        return opts.hostKeyChanged
          ? envelope(
              null,
              Code.STATE_FORBIDS,
              `HOST KEY CHANGED on web-1 (10.0.0.5:22): it presents ${OTHER_FP} but ${FP} is pinned.`,
            )
          : envelope({ output: 'uid=0(root) gid=0(root) groups=0(root)', elapsed_ms: 120 });
      case api.sshServer.rotate.path:
        return envelope({
          ...failure,
          trigger: 'manual',
          by: 'admin',
          result: 'success',
          version: 2,
          error: null,
        });
      default:
        return envelope(null, Code.NOT_FOUND, 'Not served');
    }
  });
}
const sent = (seen: InternalAxiosRequestConfig[], url: string) =>
  seen.filter((c) => c.url === url).map((c) => JSON.parse(String(c.data)) as unknown);

signedInEachTest({ permissions: ALL });

const openDetail = async () => {
  renderPage(`/credential/detail-server/${ID}`, '/credential/detail-server/:id', <ServerDetailPage />);
  await screen.findByTestId('server-title');
};

describe('servers pages', () => {
  it('lists servers with their pinned key and next rotation', async () => {
    serve();
    renderPage('/credential/server/index', '/credential/server/index', <ServerListPage />);
    expect(await screen.findByTestId('server-open-web-1')).toBeTruthy();
    expect(screen.getByText('10.0.0.5:22')).toBeTruthy();
    expect(screen.getByTestId('server-add')).toBeTruthy();
  });

  it('adds a server with the fingerprint the user fetched and confirmed', async () => {
    const seen = serve();
    renderPage('/credential/add-server', '/credential/add-server', <AddServerPage />, {
      '/credential/detail-server/:id': 'detail page',
    });
    fireEvent.change(await screen.findByTestId('server-name'), { target: { value: 'web-1' } });
    fireEvent.change(screen.getByTestId('server-host'), { target: { value: '10.0.0.5' } });
    // A port out of range is named, stays as typed and stops the save (before the
    // fingerprint: a new port asks for it again).
    fireEvent.change(screen.getByTestId('server-port'), { target: { value: '70000' } });
    fireEvent.click(screen.getByTestId('server-submit'));
    expect(await screen.findByText('Port must be a whole number from 1 to 65535')).toBeTruthy();
    expect(screen.getByTestId<HTMLInputElement>('server-port').value).toBe('70000');
    expect(sent(seen, api.sshServer.create.path)).toHaveLength(0);
    // The host key is fetched for the port as typed at the click, at once after the keystroke.
    fireEvent.change(screen.getByTestId('server-port'), { target: { value: '22' } });
    fireEvent.click(screen.getByTestId('server-fetch-fp'));
    expect((await screen.findByTestId('server-fp')).textContent).toContain(FP);
    expect(sent(seen, api.sshServer.fetchFingerprint.path)).toEqual([{ host: '10.0.0.5', port: 22 }]);
    fireEvent.click(screen.getByTestId('server-confirm-fp'));
    expect(await screen.findByText('Fingerprint confirmed')).toBeTruthy();
    // The credential select: the only password credential of the domain.
    fireEvent.mouseDown(screen.getByTestId('server-credential').querySelector('input')!);
    fireEvent.click(await screen.findByTitle('web-1 root'));
    fireEvent.click(screen.getByTestId('server-submit'));
    await waitFor(() => expect(sent(seen, api.sshServer.create.path)).toHaveLength(1));
    expect(sent(seen, api.sshServer.create.path)[0]).toMatchObject({
      name: 'web-1',
      host: '10.0.0.5',
      port: 22,
      account: 'root',
      auth_type: 'password',
      credential_id: CRED,
      host_key_fingerprint: FP,
      rotation_symbols: false,
    });
    expect(await screen.findByText('detail page')).toBeTruthy();
  });

  it('shows the details, tests the connection, rotates now and shows the history', async () => {
    const seen = serve();
    await openDetail();
    expect(screen.getByTestId('server-pinned-fp').textContent).toContain(FP);
    expect(await screen.findByText('Cannot reach 10.0.0.5:22 (ETIMEDOUT)')).toBeTruthy();
    // The terminal opens in a tab of its own; only the server id is in its address.
    const terminal = screen.getByTestId('server-open-terminal');
    expect(terminal.getAttribute('href')).toBe(`/linux-ssh?id=${ID}`);
    expect(terminal.getAttribute('target')).toBe('_blank');
    fireEvent.click(screen.getByTestId('server-test'));
    expect((await screen.findByTestId('server-outcome')).textContent).toContain('uid=0(root)');
    fireEvent.click(screen.getByTestId('server-rotate'));
    fireEvent.click(await screen.findByTestId('server-rotate-ok'));
    await waitFor(() => expect(sent(seen, api.sshServer.rotate.path)).toEqual([{ id: ID }]));
    await waitFor(() =>
      expect(screen.getByTestId('server-outcome').textContent).toContain('the credential is at version 2'),
    );
  });

  it('lists the terminal sessions and replays a recording, fetched anew each time', async () => {
    const seen = serve();
    await openDetail();
    const table = await screen.findByTestId('server-sessions');
    await waitFor(() => expect(table.textContent).toContain('alice'));
    expect(table.textContent).toContain('idle timeout');
    expect(table.textContent).toContain('2 min 5 s');
    expect(table.textContent).toContain('truncated');
    fireEvent.click(screen.getByTestId(`session-replay-${session.id}`));
    expect((await screen.findByTestId('session-player')).textContent).toBe(CAST);
    expect(screen.getByText(/The recording stopped before the session did/)).toBeTruthy();
    const asked = seen.filter((c) => c.url === api.sshServer.recording.path);
    expect(asked.map((c) => (c.params as { id: string }).id)).toEqual([session.id]);
  });

  it('warns with both fingerprints when the host key changed', async () => {
    serve({ hostKeyChanged: true });
    await openDetail();
    fireEvent.click(screen.getByTestId('server-test'));
    const warning = (await screen.findByTestId('server-outcome')).textContent ?? '';
    expect(warning).toContain('HOST KEY CHANGED');
    expect(warning).toContain(FP);
    expect(warning).toContain(OTHER_FP);
  });

  it('offers no test, rotation or change to a reader, and speaks Chinese', async () => {
    saveSignedIn(signedInFixture({ permissions: ['credential:read'] }));
    serve();
    await i18n.changeLanguage('zh');
    try {
      await openDetail();
      expect(screen.queryByTestId('server-rotate')).toBeNull();
      expect(screen.queryByTestId('server-test')).toBeNull();
      expect(screen.queryByTestId('server-open-terminal')).toBeNull();
      expect(screen.getByText('轮换历史')).toBeTruthy();
      expect(screen.getByTestId('server-title').textContent).toBe('服务器 web-1');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
