import { useQuery } from '@tanstack/react-query';
import { Button, Form } from 'antd';
import { fetchPasswordRules, updateMyPassword, userKeys } from '../../api/user';
import { useSubmit } from '../../components/use-submit';
import { NewPasswordFields } from '../../components/password-fields';
import { PasswordInput } from '../../components/password-input';
import { useT } from '../../i18n/i18n';

interface PasswordValues {
  old_password: string;
  new_password: string;
  confirm: string;
}

/**
 * Current password, new password (policy rules shown and checked) and confirmation.
 * Both passwords travel as typed; the server answers a new token, stored by the call.
 */
export function ChangePasswordForm({ onChanged }: { onChanged: () => void | Promise<void> }) {
  const t = useT();
  const [form] = Form.useForm<PasswordValues>();
  const rules = useQuery({ queryKey: userKeys.passwordRules, queryFn: fetchPasswordRules });

  const { run, buttonProps } = useSubmit();

  const submit = ({ old_password, new_password }: PasswordValues) =>
    run(async () => {
      await updateMyPassword({ old_password, new_password });
      form.resetFields();
      await onChanged();
    });

  return (
    <Form<PasswordValues>
      form={form}
      layout="vertical"
      onFinish={(values) => void submit(values)}
      style={{ maxWidth: 480 }}
      data-testid="change-password-form"
    >
      <Form.Item
        name="old_password"
        label={t('account:password.old')}
        rules={[{ required: true, message: t('account:password.oldRequired') }]}
      >
        <PasswordInput autoComplete="current-password" data-testid="password-old" />
      </Form.Item>
      <NewPasswordFields
        form={form}
        rules={rules.data}
        name="new_password"
        label={t('account:password.new')}
        confirmLabel={t('account:password.confirm')}
        testIds={{ password: 'password-new', confirm: 'password-confirm' }}
      />
      <Button type="primary" htmlType="submit" {...buttonProps} data-testid="password-submit">
        {t('account:password.submit')}
      </Button>
    </Form>
  );
}
