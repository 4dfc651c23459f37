import { useState, type KeyboardEvent } from 'react';
import { theme } from 'antd';
// antd's Password alone, not its Input module (TextArea, Search, OTP): it is on the login page.
import Password, { type PasswordProps } from 'antd/es/input/Password';
import { useT } from '../i18n/i18n';

/** Tracks Caps Lock from the key events of one input. */
export function useCapsLock() {
  const [on, setOn] = useState(false);
  const onKey = (event: KeyboardEvent) => {
    if (typeof event.getModifierState === 'function') setOn(event.getModifierState('CapsLock'));
  };
  return { capsLock: on, onKeyDown: onKey, onKeyUp: onKey, onBlur: () => setOn(false) };
}

/** A password input that says "Caps Lock is on" under itself while it is. */
export function PasswordInput(props: PasswordProps) {
  const t = useT();
  const { token } = theme.useToken();
  const { capsLock, onKeyDown, onKeyUp, onBlur } = useCapsLock();
  return (
    <>
      <Password
        {...props}
        onKeyDown={(event) => {
          onKeyDown(event);
          props.onKeyDown?.(event);
        }}
        onKeyUp={(event) => {
          onKeyUp(event);
          props.onKeyUp?.(event);
        }}
        onBlur={(event) => {
          onBlur();
          props.onBlur?.(event);
        }}
      />
      {capsLock && (
        // Typography.Text type="warning" in looks; Typography itself would weigh on the login page.
        <span style={{ color: token.colorWarning }} data-testid="caps-lock" role="status">
          {t('common:validation.capsLock')}
        </span>
      )}
    </>
  );
}
