import type { ReactNode } from 'react';
import { Dropdown } from 'antd';

/** The menu of `ChoiceMenu` around its button (antd Dropdown and Menu, loaded after the page shows). */
export default function ChoiceDropdown({
  current,
  choices,
  onChoose,
  children,
}: {
  current: string;
  choices: readonly { key: string; label: ReactNode }[];
  onChoose: (key: string) => void;
  children: ReactNode;
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
      {children}
    </Dropdown>
  );
}
