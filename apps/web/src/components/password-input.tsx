import { useEffect, useState } from 'react';
import { theme } from 'antd';
// antd's Password alone, not its Input module (TextArea, Search, OTP): it is on the login page.
import Password, { type PasswordProps } from 'antd/es/input/Password';
import { useT } from '../i18n/i18n';

/**
 * Tracks Caps Lock from the key events of the whole window while the input is on the page:
 * the input's own (they bubble up) and those of other fields (Caps Lock turned off there).
 * Focus changes leave it as it is: the hint must not vanish when the field loses focus, which
 * would move what is below it (the "Log in" button) under the pointer of the click that took
 * the focus away.
 */
export function useCapsLock() {
  const [on, setOn] = useState(false);
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      if (typeof event.getModifierState === 'function') setOn(event.getModifierState('CapsLock'));
    };
    window.addEventListener('keydown', listener);
    window.addEventListener('keyup', listener);
    return () => {
      window.removeEventListener('keydown', listener);
      window.removeEventListener('keyup', listener);
    };
  }, []);
  return on;
}

/** A password input that says "Caps Lock is on" under itself while it is, once it has had the focus. */
export function PasswordInput(props: PasswordProps) {
  const t = useT();
  const { token } = theme.useToken();
  const capsLock = useCapsLock();
  const [used, setUsed] = useState(false);
  return (
    <>
      <Password
        {...props}
        onFocus={(event) => {
          setUsed(true);
          props.onFocus?.(event);
        }}
      />
      {used && capsLock && (
        // Typography.Text type="warning" in looks; Typography itself would weigh on the login page.
        <span style={{ color: token.colorWarning }} data-testid="caps-lock" role="status">
          {t('common:validation.capsLock')}
        </span>
      )}
    </>
  );
}
