import { useQuery } from '@tanstack/react-query';
import { Alert, App, Form, Input } from 'antd';
import { api, isDirectoryUsername, type DataOf } from '@ksp/contracts';
import { createUser, resetUserPassword } from '../../api/access';
import { fetchPasswordRules, userKeys } from '../../api/user';
import { useCanCall } from '../../components/permissions';
import { ModalForm } from '../../components/form-modal';
import { NewPasswordFields } from '../../components/password-fields';
import { fieldSchema, rulesFromSchema } from '../../components/schema-rules';
import { useT } from '../../i18n/i18n';
import { parseIpRules, ipRulesRule } from '../../components/ip-rules';
import { DomainSelect, RoleSelect } from './option-selects';
import { SwitchField } from '../../components/switch-field';

export type UserRow = DataOf<typeof api.user.list>['data'][number];

interface CreateValues {
  username: string;
  password: string;
  confirm: string;
  email: string;
  phone?: string;
  role_ids: string[];
  domain_ids?: string[];
  must_change_password: boolean;
  ip_whitelist?: string;
}

const createSchema = api.user.create.body;
const rulesOf = (name: string, label: string) => rulesFromSchema(fieldSchema(createSchema, name), label);

/** New local user: credentials under the password policy, contact, roles, domains, whitelist. */
export function CreateUserModal({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (user: UserRow) => void | Promise<void>;
}) {
  const t = useT();
  const [form] = Form.useForm<CreateValues>();
  const canReadDomains = useCanCall(api.domain.list);
  const rules = useQuery({ queryKey: userKeys.passwordRules, queryFn: fetchPasswordRules, enabled: open });
  const submit = async (values: CreateValues) => {
    const user = await createUser({
      username: values.username.trim(),
      password: values.password,
      email: values.email.trim(),
      phone: values.phone?.trim() ?? '',
      role_ids: values.role_ids,
      ...(values.domain_ids?.length ? { domain_ids: values.domain_ids } : {}),
      must_change_password: values.must_change_password,
      ip_whitelist: parseIpRules(values.ip_whitelist).rules,
    });
    await onCreated(user);
  };

  return (
    <ModalForm<CreateValues>
      open={open}
      title={t('access:user.createTitle')}
      okTestId="user-create-ok"
      form={form}
      initialValues={{ must_change_password: true, role_ids: [], ip_whitelist: '' }}
      onSubmit={submit}
      onClose={onClose}
      width={620}
    >
      <Form.Item
        name="username"
        label={t('access:user.fields.username')}
        extra={t('access:user.usernameHint')}
        rules={[
          ...rulesOf('username', t('access:user.fields.username')),
          {
            validator: (_rule, value: unknown) =>
              typeof value === 'string' && isDirectoryUsername(value)
                ? Promise.reject(new Error(t('access:user.usernameSlash')))
                : Promise.resolve(),
          },
        ]}
      >
        <Input autoComplete="off" data-testid="user-username" />
      </Form.Item>
      <NewPasswordFields
        form={form}
        rules={rules.data}
        label={t('access:user.fields.password')}
        confirmLabel={t('access:user.fields.confirm')}
        testIds={{ password: 'user-password', confirm: 'user-confirm' }}
      />
      <Form.Item
        name="email"
        label={t('access:user.fields.email')}
        rules={rulesOf('email', t('access:user.fields.email'))}
      >
        <Input type="email" autoComplete="off" data-testid="user-email" />
      </Form.Item>
      <Form.Item
        name="phone"
        label={t('access:user.fields.phone')}
        rules={rulesOf('phone', t('access:user.fields.phone'))}
      >
        <Input autoComplete="off" data-testid="user-phone" />
      </Form.Item>
      <Form.Item
        name="role_ids"
        label={t('access:user.fields.roles')}
        rules={[{ required: true, type: 'array', min: 1, message: t('access:user.rolesRequired') }]}
      >
        <RoleSelect data-testid="user-roles" />
      </Form.Item>
      {canReadDomains && (
        <Form.Item
          name="domain_ids"
          label={t('access:user.fields.domains')}
          extra={t('access:user.domainsHint')}
        >
          <DomainSelect data-testid="user-domains" />
        </Form.Item>
      )}
      <SwitchField
        name="must_change_password"
        label={t('access:user.fields.mustChange')}
        extra={t('access:user.mustChangeHint')}
        testId="user-must-change"
      />
      <Form.Item
        name="ip_whitelist"
        label={t('access:user.fields.ipWhitelist')}
        extra={t('access:ip.hint')}
        rules={[ipRulesRule()]}
      >
        <Input.TextArea autoSize={{ minRows: 2, maxRows: 6 }} data-testid="user-ip" />
      </Form.Item>
    </ModalForm>
  );
}

interface ResetValues {
  password: string;
  confirm: string;
}

/** An administrator sets a new password: the user must change it at next login, its sessions end. */
export function ResetPasswordModal({ user, onClose }: { user: UserRow | null; onClose: () => void }) {
  const t = useT();
  const { message } = App.useApp();
  const [form] = Form.useForm<ResetValues>();
  const rules = useQuery({
    queryKey: userKeys.passwordRules,
    queryFn: fetchPasswordRules,
    enabled: user !== null,
  });
  const submit = async ({ password }: ResetValues) => {
    if (!user) return;
    await resetUserPassword(user.id, password);
    void message.success(t('access:user.passwordReset', { name: user.username }));
  };

  return (
    <ModalForm<ResetValues>
      open={user !== null}
      title={t('access:user.resetTitle', { name: user?.username ?? '' })}
      okTestId="user-reset-ok"
      form={form}
      onSubmit={submit}
      onClose={onClose}
    >
      <Alert type="info" showIcon title={t('access:user.resetHint')} style={{ marginBottom: 16 }} />
      <NewPasswordFields
        form={form}
        rules={rules.data}
        label={t('access:user.fields.newPassword')}
        confirmLabel={t('access:user.fields.confirm')}
        testIds={{ password: 'user-reset-password', confirm: 'user-reset-confirm' }}
      />
    </ModalForm>
  );
}
