import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Form, Space, Typography } from 'antd';
import { ApiError } from '../../api/api-error';
import { createServer, fetchFingerprint, serverKeys } from '../../api/ssh-server';
import { useLeaveTab } from '../../app/layout/tabs-context';
import { useT } from '../../i18n/i18n';
import { serverDetailPath, serverListPath } from './server-paths';
import { ServerFields, serverFormDefaults, toBody, type ServerFormValues } from './server-fields';

/** SMS › add a server: its settings, and the host key fingerprint fetched and confirmed by the user. */
export default function AddServerPage() {
  const t = useT();
  const { message } = App.useApp();
  const leave = useLeaveTab();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<ServerFormValues>();
  const [fetched, setFetched] = useState<{ fingerprint: string; key_type: string; for: string } | null>(null);
  const [confirmed, setConfirmed] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const host = Form.useWatch('host', form) ?? '';
  const port = Form.useWatch('port', form) ?? 22;
  const target = `${host}:${port}`;
  // Another host or port is another machine: what was fetched or confirmed no longer holds.
  const current = fetched?.for === target ? fetched : null;
  const pinned = current && confirmed === current.fingerprint ? confirmed : null;

  const fetchKey = async () => {
    setError(null);
    // The form's own values at the click (the watched ones may not have caught up with the last
    // keystroke), checked first: a port out of range is named at its field, not asked of the server.
    let values: Pick<ServerFormValues, 'host' | 'port'>;
    try {
      values = await form.validateFields(['host', 'port']);
    } catch {
      return;
    }
    setBusy(true);
    try {
      const key = await fetchFingerprint({ host: values.host.trim(), port: values.port });
      setFetched({
        fingerprint: key.fingerprint,
        key_type: key.key_type,
        for: `${values.host}:${values.port}`,
      });
      setConfirmed(null);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const submit = async (values: ServerFormValues) => {
    setError(null);
    setBusy(true);
    try {
      const row = await createServer({ ...toBody(values), host_key_fingerprint: pinned });
      void message.success(t('sshServer:created', { name: row.name }));
      await queryClient.invalidateQueries({ queryKey: serverKeys.all });
      leave(serverDetailPath(row.id));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Flex vertical gap={16}>
      <Space wrap>
        <Button onClick={() => leave(serverListPath)}>{t('sshServer:back')}</Button>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('sshServer:addTitle')}
        </Typography.Title>
      </Space>
      <Form<ServerFormValues>
        form={form}
        layout="vertical"
        initialValues={serverFormDefaults}
        onFinish={(v) => void submit(v)}
        data-testid="server-form"
      >
        <Card title={t('sshServer:settings')}>
          <ServerFields />
        </Card>
        <Card title={t('sshServer:fields.fingerprint')} style={{ marginTop: 16 }}>
          <Flex vertical gap={12}>
            <Typography.Text type="secondary">{t('sshServer:hints.fingerprint')}</Typography.Text>
            <Space wrap>
              <Button
                onClick={() => void fetchKey()}
                disabled={!host.trim()}
                loading={busy}
                data-testid="server-fetch-fp"
              >
                {t('sshServer:fetchFingerprint')}
              </Button>
              {current && !pinned && (
                <Button
                  type="primary"
                  onClick={() => setConfirmed(current.fingerprint)}
                  data-testid="server-confirm-fp"
                >
                  {t('sshServer:confirmFingerprint')}
                </Button>
              )}
            </Space>
            {current && (
              <Alert
                type={pinned ? 'success' : 'info'}
                showIcon
                data-testid="server-fp"
                message={
                  <span style={{ wordBreak: 'break-all' }}>
                    {t('sshServer:fetched', { type: current.key_type, fingerprint: current.fingerprint })}
                  </span>
                }
                description={pinned ? t('sshServer:pinned') : t('sshServer:confirmContent')}
              />
            )}
            {!pinned && <Typography.Text type="warning">{t('sshServer:confirmLater')}</Typography.Text>}
          </Flex>
        </Card>
        {error && (
          <Alert type="error" showIcon message={error} style={{ marginTop: 16 }} data-testid="server-error" />
        )}
        <Flex justify="end" style={{ marginTop: 16 }}>
          <Button type="primary" htmlType="submit" loading={busy} data-testid="server-submit">
            {t('common:actions.add')}
          </Button>
        </Flex>
      </Form>
    </Flex>
  );
}
