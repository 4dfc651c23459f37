import { useState } from 'react';
import { UsbOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import {
  App,
  Alert,
  Button,
  Card,
  Col,
  Descriptions,
  Flex,
  Form,
  Input,
  Row,
  Space,
  Tag,
  Typography,
} from 'antd';
import { accessKeys } from '../../api/access';
import { saveUserInfo, useSignedIn, type UserInfo } from '../../api/session';
import { bindUkey, BridgeError, bridgeAddress, readBridgeCertificate } from '../../api/ukey';
import { updateEmail } from '../../api/user';
import { useSiteConfig } from '../../components/use-site-config';
import { useT } from '../../i18n/i18n';
import { roleName } from '../../i18n/server-labels';
import { ChangePasswordForm } from './change-password-form';
import { formatDateTime } from '../../components/date-time';
import { useConfirm } from '../../components/confirm-delete';
import { useSubmit } from '../../components/use-submit';

interface Binding {
  serial: string;
  subject?: string;
  notAfter?: string;
}

/**
 * My UKEY: bound or not (with the serial), and binding the one plugged in: the local
 * bridge reads its certificate, the server keeps it to verify UKEY logins.
 */
function UkeyCard({ user }: { user: UserInfo }) {
  const t = useT();
  const { message } = App.useApp();
  const confirmDialog = useConfirm();
  const queryClient = useQueryClient();
  const site = useSiteConfig();
  const bridge = bridgeAddress(site.data);
  const [bound, setBound] = useState<Binding | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  // The session's user info tells the binding; a binding made here shows at once.
  const known: Binding | null = bound ?? (user.ukey_bound ? { serial: user.ukey_serial ?? '' } : null);

  const bind = async () => {
    setBusy(true);
    setProblem(null);
    const address = site.data ? bridge : bridgeAddress((await site.refetch()).data);
    try {
      const token = await readBridgeCertificate(address);
      const result = await bindUkey(token.serial, token.certificate);
      setBound({ serial: result.ukey_serial, subject: result.subject, notAfter: result.not_after });
      void message.success(t('access:ukey.boundOk', { serial: result.ukey_serial }));
      await queryClient.invalidateQueries({ queryKey: accessKeys.users });
    } catch (error) {
      if (error instanceof BridgeError) {
        setProblem(
          error.unreachable
            ? t('access:ukey.bridgeUnreachable', { url: address })
            : t('access:ukey.bridgeError', { error: error.message }),
        );
      }
      // Otherwise the client showed the server's message.
    } finally {
      setBusy(false);
    }
  };

  const start = () => {
    if (!known) {
      void bind();
      return;
    }
    confirmDialog({
      title: t('access:ukey.rebindTitle'),
      content: t('access:ukey.rebindText', { serial: known.serial }),
      okText: t('access:ukey.bind'),
      onOk: bind,
    });
  };

  return (
    <Card
      title={
        <Space>
          <UsbOutlined />
          {t('access:ukey.title')}
        </Space>
      }
      data-testid="profile-ukey"
    >
      <Flex vertical gap={12}>
        <Descriptions
          column={1}
          size="small"
          items={[
            {
              key: 'state',
              label: t('access:ukey.state'),
              children: known ? (
                <Tag color="green" data-testid="profile-ukey-state" data-state="bound">
                  {t('access:ukey.bound')}
                </Tag>
              ) : (
                <Tag data-testid="profile-ukey-state" data-state="unbound">
                  {t('access:ukey.unbound')}
                </Tag>
              ),
            },
            ...(known
              ? [
                  {
                    key: 'serial',
                    label: t('access:ukey.serial'),
                    children: (
                      <Typography.Text code data-testid="profile-ukey-serial">
                        {known.serial || '-'}
                      </Typography.Text>
                    ),
                  },
                ]
              : []),
            ...(known?.subject
              ? [{ key: 'subject', label: t('access:ukey.subject'), children: known.subject }]
              : []),
            ...(known?.notAfter
              ? [
                  {
                    key: 'not-after',
                    label: t('access:ukey.notAfter'),
                    children: formatDateTime(known.notAfter),
                  },
                ]
              : []),
          ]}
        />
        <Typography.Text type="secondary">{t('access:ukey.bindHelp', { url: bridge })}</Typography.Text>
        {problem && <Alert type="error" showIcon title={problem} data-testid="profile-ukey-error" />}
        <div>
          <Button type="primary" loading={busy} onClick={start} data-testid="profile-ukey-bind">
            {known ? t('access:ukey.rebind') : t('access:ukey.bind')}
          </Button>
        </div>
      </Flex>
    </Card>
  );
}

/** My account: details, email change and password change. */
export default function ProfilePage() {
  const t = useT();
  const { message } = App.useApp();
  const signedIn = useSignedIn();
  const [emailForm] = Form.useForm<{ email: string }>();
  const emailSubmit = useSubmit();
  if (!signedIn) return null;
  const user = signedIn.userinfo;

  const saveEmail = ({ email }: { email: string }) =>
    emailSubmit.run(async () => {
      const result = await updateEmail(email.trim());
      saveUserInfo({ userinfo: { ...user, email: result.email }, menu: signedIn.menu });
      void message.success(t('account:profile.emailSaved'));
    });

  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} xl={10}>
        <Card title={t('account:profile.account')}>
          <Descriptions column={1} size="small">
            <Descriptions.Item label={t('account:profile.name')}>{user.name}</Descriptions.Item>
            <Descriptions.Item label={t('account:profile.email')}>{user.email || '-'}</Descriptions.Item>
            <Descriptions.Item label={t('account:profile.domain')}>{user.domain}</Descriptions.Item>
            <Descriptions.Item label={t('account:profile.roles')}>
              <Space wrap size={4}>
                {user.roles.map((role) => (
                  <Tag key={role}>{roleName(role)}</Tag>
                ))}
              </Space>
            </Descriptions.Item>
            <Descriptions.Item label={t('account:profile.directory')}>
              {user.directory ?? t('account:profile.local')}
            </Descriptions.Item>
            <Descriptions.Item label={t('account:profile.lastLogin')}>
              {user.last_login_at ? formatDateTime(user.last_login_at) : t('account:profile.never')}
            </Descriptions.Item>
          </Descriptions>
        </Card>
      </Col>
      <Col xs={24} xl={14}>
        <Space orientation="vertical" size={16} style={{ width: '100%' }}>
          <Card title={t('account:profile.editEmail')}>
            <Form
              form={emailForm}
              layout="vertical"
              initialValues={{ email: user.email }}
              onFinish={(values) => void saveEmail(values)}
              style={{ maxWidth: 480 }}
            >
              <Form.Item
                name="email"
                label={t('account:profile.email')}
                rules={[
                  { required: true, message: t('common:validation.invalidEmail') },
                  { type: 'email', message: t('common:validation.invalidEmail') },
                ]}
              >
                <Input type="email" autoComplete="email" data-testid="profile-email" />
              </Form.Item>
              <Button
                type="primary"
                htmlType="submit"
                {...emailSubmit.buttonProps}
                data-testid="profile-email-save"
              >
                {t('common:actions.save')}
              </Button>
            </Form>
          </Card>
          <UkeyCard user={user} />
          <Card title={t('account:password.title')}>
            {user.directory ? (
              <Alert type="info" showIcon title={t('account:password.directoryUser')} />
            ) : (
              <ChangePasswordForm onChanged={() => void message.success(t('account:password.changed'))} />
            )}
          </Card>
        </Space>
      </Col>
    </Row>
  );
}
