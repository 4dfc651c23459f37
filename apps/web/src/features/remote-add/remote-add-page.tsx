import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Flex, Form, Input, Select, Typography } from 'antd';
import { Link } from 'react-router';
import { api } from '@ksp/contracts';
import { call } from '../../api/client';
import { CopyButton } from '../../components/copy-button';
import { PublicPage } from '../../components/public-page';
import { paths } from '../../config/paths';
import { useT } from '../../i18n/i18n';
import {
  enrolTypes,
  linuxCommand,
  NAME_PATTERN,
  readFragment,
  TOKEN_PATTERN,
  windowsCommand,
  type EnrolType,
} from '../../components/enrol-command';

function Command({ label, text, id }: { label: string; text: string; id: string }) {
  return (
    <Flex vertical gap={6}>
      <Flex justify="space-between" align="center">
        <Typography.Text strong>{label}</Typography.Text>
        <CopyButton text={text} testId={`remote-add-copy-${id}`} />
      </Flex>
      <Typography.Paragraph
        code
        style={{ wordBreak: 'break-all', margin: 0, fontSize: 13 }}
        data-testid={`remote-add-${id}`}
      >
        {text}
      </Typography.Paragraph>
    </Flex>
  );
}

/**
 * /remote-add (public): the command that enrols an agent with a registration token, for Linux
 * and Windows, and the server's TLS CA fingerprint. The token comes in the URL fragment (never
 * sent to any server; dropped from the address bar once read) or is pasted.
 */
export default function RemoteAddPage() {
  const t = useT();
  const [initial] = useState(() => readFragment(window.location.hash));
  const [token, setToken] = useState(initial.token);
  const [type, setType] = useState<EnrolType>(initial.type ?? 'kadp');
  const [name, setName] = useState('');
  const info = useQuery({ queryKey: ['remote-add', 'info'], queryFn: () => call(api.remoteAdd.info, {}) });

  useEffect(() => {
    // The secret leaves the address bar (and this history entry) once read.
    if (window.location.hash)
      window.history.replaceState(
        window.history.state,
        '',
        window.location.pathname + window.location.search,
      );
  }, []);

  const tokenOk = TOKEN_PATTERN.test(token.trim());
  const nameOk = name.trim() === '' || NAME_PATTERN.test(name.trim());
  const input = { server: window.location.origin, token: token.trim(), type, name: name.trim() };

  return (
    <PublicPage width={760}>
      <Flex vertical gap={16} data-testid="remote-add-page">
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('remoteAdd:title')}
        </Typography.Title>
        <Typography.Text type="secondary">{t('remoteAdd:intro')}</Typography.Text>
        <Form layout="vertical" component="div">
          <Form.Item
            label={t('remoteAdd:fields.token')}
            validateStatus={token && !tokenOk ? 'error' : undefined}
            help={token && !tokenOk ? t('remoteAdd:rules.token') : undefined}
          >
            <Input.Password
              value={token}
              onChange={(e) => setToken(e.target.value)}
              placeholder={t('remoteAdd:placeholders.token')}
              autoComplete="off"
              data-testid="remote-add-token"
            />
          </Form.Item>
          <Flex gap={12} wrap>
            <Form.Item label={t('remoteAdd:fields.type')} style={{ minWidth: 240, flex: 1 }}>
              <Select
                value={type}
                onChange={setType}
                options={enrolTypes.map((v) => ({ value: v, label: t(`remoteAdd:types.${v}`) }))}
                data-testid="remote-add-type"
              />
            </Form.Item>
            <Form.Item
              label={t('remoteAdd:fields.name')}
              style={{ minWidth: 240, flex: 1 }}
              validateStatus={nameOk ? undefined : 'error'}
              help={nameOk ? undefined : t('remoteAdd:rules.name')}
            >
              <Input
                value={name}
                onChange={(e) => setName(e.target.value)}
                placeholder={t('remoteAdd:placeholders.name')}
                data-testid="remote-add-name"
              />
            </Form.Item>
          </Flex>
        </Form>
        {tokenOk && nameOk ? (
          <Flex vertical gap={12}>
            <Command label={t('remoteAdd:linux')} text={linuxCommand(input)} id="linux" />
            <Command label={t('remoteAdd:windows')} text={windowsCommand(input)} id="windows" />
          </Flex>
        ) : (
          <Alert type="info" showIcon title={t('remoteAdd:needToken')} />
        )}
        {info.data &&
          (info.data.ca_fingerprint_sha256 ? (
            <Flex vertical gap={4} data-testid="remote-add-fingerprint">
              <Typography.Text strong>{t('remoteAdd:fingerprint')}</Typography.Text>
              <Typography.Text code style={{ wordBreak: 'break-all' }}>
                {info.data.ca_fingerprint_sha256}
              </Typography.Text>
              {info.data.ca_subject && (
                <Typography.Text type="secondary">{info.data.ca_subject}</Typography.Text>
              )}
              <Typography.Text type="secondary">{t('remoteAdd:fingerprintHelp')}</Typography.Text>
            </Flex>
          ) : (
            <Alert
              type="warning"
              showIcon
              title={t('remoteAdd:noTls')}
              data-testid="remote-add-fingerprint"
            />
          ))}
        <Link to={paths.login}>
          <Button>{t('remoteAdd:toLogin')}</Button>
        </Link>
      </Flex>
    </PublicPage>
  );
}
