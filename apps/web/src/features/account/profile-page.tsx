import { App, Alert, Button, Card, Col, Descriptions, Form, Input, Row, Space, Tag } from 'antd';
import dayjs from 'dayjs';
import { saveUserInfo, useSignedIn } from '../../api/session';
import { updateEmail } from '../../api/user';
import { useT } from '../../i18n/i18n';
import { ChangePasswordForm } from './change-password-form';

/** My account: details, email change and password change. */
export default function ProfilePage() {
  const t = useT();
  const { message } = App.useApp();
  const signedIn = useSignedIn();
  const [emailForm] = Form.useForm<{ email: string }>();
  if (!signedIn) return null;
  const user = signedIn.userinfo;

  const saveEmail = async ({ email }: { email: string }) => {
    try {
      const result = await updateEmail(email.trim());
      saveUserInfo({ userinfo: { ...user, email: result.email }, menu: signedIn.menu });
      void message.success(t('account:profile.emailSaved'));
    } catch {
      // The client showed the server's message.
    }
  };

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
                  <Tag key={role}>{role}</Tag>
                ))}
              </Space>
            </Descriptions.Item>
            <Descriptions.Item label={t('account:profile.directory')}>
              {user.directory ?? t('account:profile.local')}
            </Descriptions.Item>
            <Descriptions.Item label={t('account:profile.lastLogin')}>
              {user.last_login_at
                ? dayjs(user.last_login_at).format('YYYY-MM-DD HH:mm:ss')
                : t('account:profile.never')}
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
              <Button type="primary" htmlType="submit" data-testid="profile-email-save">
                {t('common:actions.save')}
              </Button>
            </Form>
          </Card>
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
