import { Grid } from 'antd';

/**
 * Where a table pins its name and action columns: on wide screens only. On a phone a
 * pinned column on each side would leave no room for the scrolling ones between them.
 */
export function useStickyColumns(): { left: 'left' | undefined; right: 'right' | undefined } {
  const screens = Grid.useBreakpoint();
  return screens.md ? { left: 'left', right: 'right' } : { left: undefined, right: undefined };
}
