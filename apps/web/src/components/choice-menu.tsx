import { lazy, Suspense, type ReactNode } from 'react';
import { Button } from 'antd';

// antd's Dropdown and Menu are not needed to type into the login form: they load once the page
// shows, and the button waits for them disabled.
const ChoiceDropdown = lazy(() => import('./choice-dropdown'));

/** A text button opening a menu of choices with the current one marked (language, domain). */
export function ChoiceMenu({
  current,
  choices,
  onChoose,
  icon,
  ariaLabel,
  testId,
  children,
}: {
  current: string;
  choices: readonly { key: string; label: ReactNode }[];
  onChoose: (key: string) => void;
  icon: ReactNode;
  ariaLabel: string;
  testId: string;
  children?: ReactNode;
}) {
  const button = (disabled: boolean) => (
    <Button type="text" icon={icon} aria-label={ariaLabel} data-testid={testId} disabled={disabled}>
      {children}
    </Button>
  );
  return (
    <Suspense fallback={button(true)}>
      <ChoiceDropdown current={current} choices={choices} onChoose={onChoose}>
        {button(false)}
      </ChoiceDropdown>
    </Suspense>
  );
}
