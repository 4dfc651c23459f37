import { Alert, Tag } from 'antd';

/** The MFA mark beside the login title. */
export function MfaTag({ children }: { children: string }) {
  return (
    <Tag color="gold" style={{ marginInlineStart: 8, verticalAlign: 'middle' }}>
      {children}
    </Tag>
  );
}

/** Why the last sign-in failed. */
export function LoginError({ text }: { text: string }) {
  return <Alert type="error" showIcon title={text} style={{ marginBottom: 16 }} data-testid="login-error" />;
}
