import { useEffect, useRef, useState } from 'react';
import { Alert, Flex, Typography } from 'antd';
import { useSearchParams } from 'react-router';
import { ApiError } from '../../api/api-error';
import { fetchServer, terminalTicket } from '../../api/ssh-server';
import { useT } from '../../i18n/i18n';
import '@xterm/xterm/css/xterm.css';

type Frame =
  | { type: 'ready' }
  | { type: 'data'; data: string }
  | { type: 'error'; message: string }
  | { type: 'exit'; reason: string };

/** The WebSocket of the terminal relay, on this page's origin (the ticket goes in the first message). */
const socketUrl = () =>
  `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/ws/ssh`;

/**
 * The web SSH terminal (`/linux-ssh?id=<server>`), standalone in its own tab or embedded:
 * a single-use ticket from the server, then xterm.js over the `/ws/ssh` relay (docs/api.md).
 * xterm.js comes with this lazy page only, never with the login page.
 */
export default function TerminalPage() {
  const t = useT();
  const [params] = useSearchParams();
  const id = params.get('id');
  const host = useRef<HTMLDivElement>(null);
  const [title, setTitle] = useState('');
  const [status, setStatus] = useState<{ type: 'info' | 'error'; text: string } | null>(null);

  useEffect(() => {
    if (!id || !host.current) return;
    const element = host.current;
    let disposed = false;
    let socket: WebSocket | null = null;
    let cleanup = () => {};

    void (async () => {
      const [{ Terminal }, { FitAddon }] = await Promise.all([
        import('@xterm/xterm'),
        import('@xterm/addon-fit'),
      ]);
      if (disposed) return;
      const term = new Terminal({ cursorBlink: true, fontSize: 14, convertEol: false });
      const fit = new FitAddon();
      term.loadAddon(fit);
      term.open(element);
      fit.fit();
      const onResize = () => fit.fit();
      window.addEventListener('resize', onResize);
      cleanup = () => {
        window.removeEventListener('resize', onResize);
        term.dispose();
      };
      try {
        const server = await fetchServer(id);
        setTitle(server.name);
        setStatus({ type: 'info', text: t('sshServer:terminalConnecting', { name: server.name }) });
        const { ticket } = await terminalTicket(id);
        if (disposed) return;
        socket = new WebSocket(socketUrl());
        const ws = socket;
        ws.onopen = () => ws.send(JSON.stringify({ type: 'auth', ticket, cols: term.cols, rows: term.rows }));
        ws.onmessage = (event: MessageEvent<string>) => {
          const frame = JSON.parse(event.data) as Frame;
          if (frame.type === 'ready') {
            setStatus(null);
            term.focus();
          } else if (frame.type === 'data') term.write(frame.data);
          else if (frame.type === 'error') setStatus({ type: 'error', text: frame.message });
          else setStatus({ type: 'info', text: t('sshServer:terminalClosed', { reason: frame.reason }) });
        };
        ws.onclose = () => setStatus((s) => s ?? { type: 'info', text: t('sshServer:terminalDisconnected') });
        term.onData((data) => {
          if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'data', data }));
        });
        term.onResize(({ cols, rows }) => {
          if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'resize', cols, rows }));
        });
      } catch (err) {
        setStatus({ type: 'error', text: err instanceof ApiError ? err.message : String(err) });
      }
    })();

    return () => {
      disposed = true;
      socket?.close();
      cleanup();
    };
  }, [id, t]);

  if (!id) return <Alert type="warning" showIcon message={t('sshServer:terminalNoServer')} />;
  return (
    <Flex
      vertical
      gap={8}
      style={{ height: '100vh', padding: 8, boxSizing: 'border-box', background: '#000' }}
    >
      {title && (
        <Typography.Text style={{ color: '#ccc' }} data-testid="terminal-title">
          {title}
        </Typography.Text>
      )}
      {status && <Alert type={status.type} showIcon message={status.text} data-testid="terminal-status" />}
      <div ref={host} style={{ flex: 1, minHeight: 0 }} data-testid="terminal" />
    </Flex>
  );
}
