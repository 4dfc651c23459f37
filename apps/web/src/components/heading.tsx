import type { CSSProperties, ReactNode } from 'react';
import { theme } from 'antd';

/**
 * A heading as antd's Typography.Title draws it (size, line height, weight, colour, 0.5em
 * below), for the public pages: Typography brings its copy, edit and ellipsis machinery
 * (Tooltip, TextArea) along, about 20 KB gzip the login form does not need.
 */
export function Heading({
  level,
  style,
  children,
}: {
  level: 3 | 4;
  style?: CSSProperties;
  children: ReactNode;
}) {
  const { token } = theme.useToken();
  const Element = level === 3 ? 'h3' : 'h4';
  return (
    <Element
      style={{
        marginBottom: '0.5em',
        color: token.colorTextHeading,
        fontWeight: token.fontWeightStrong,
        fontSize: level === 3 ? token.fontSizeHeading3 : token.fontSizeHeading4,
        lineHeight: level === 3 ? token.lineHeightHeading3 : token.lineHeightHeading4,
        ...style,
      }}
    >
      {children}
    </Element>
  );
}
