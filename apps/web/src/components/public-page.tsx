import type { ReactNode } from 'react';
import { Flex, theme } from 'antd';
import { AppLogo } from './app-logo';
import { Heading } from './heading';
import { LanguageSwitch } from './language-switch';
import { useProductTitle, useSiteConfig } from './use-site-config';

/** The frame of the pages outside the console shell: logo, title, language switch, a card. */
export function PublicPage({ children, width = 420 }: { children: ReactNode; width?: number }) {
  const { token } = theme.useToken();
  const site = useSiteConfig();
  const title = useProductTitle();
  return (
    <Flex
      vertical
      align="center"
      style={{ minHeight: '100vh', padding: '24px 12px', background: token.colorBgLayout }}
    >
      <Flex justify="flex-end" style={{ width: '100%', maxWidth: width }}>
        <LanguageSwitch showLabel />
      </Flex>
      <Flex align="center" gap={12} style={{ margin: '24px 0 20px', color: token.colorPrimary }}>
        <AppLogo src={site.data?.logo} alt={title} size={40} testId="public-logo" />
        <Heading level={3} style={{ margin: 0 }}>
          {title}
        </Heading>
      </Flex>
      {/* The frame of antd's Card, drawn from the theme: Card itself would bring Tabs, Skeleton and
          a Dropdown before the login form can take input. */}
      <div
        style={{
          boxSizing: 'border-box',
          width: '100%',
          maxWidth: width,
          padding: token.paddingLG,
          color: token.colorText,
          background: token.colorBgContainer,
          border: `${token.lineWidth}px ${token.lineType} ${token.colorBorderSecondary}`,
          borderRadius: token.borderRadiusLG,
        }}
      >
        {children}
      </div>
    </Flex>
  );
}
