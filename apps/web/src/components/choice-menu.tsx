import type { ReactNode } from 'react';
import { Button, Dropdown } from 'antd';

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
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectable: true,
        selectedKeys: [current],
        items: [...choices],
        onClick: ({ key }) => onChoose(key),
      }}
    >
      <Button type="text" icon={icon} aria-label={ariaLabel} data-testid={testId}>
        {children}
      </Button>
    </Dropdown>
  );
}
