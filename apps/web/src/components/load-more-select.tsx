import type { UIEvent } from 'react';
import { Select, type SelectProps } from 'antd';

interface ScrollBox {
  scrollTop: number;
  clientHeight: number;
  scrollHeight: number;
}

/** True when a scroll box shows its last pixels (`threshold` absorbs sub-pixel rounding). */
export function isScrolledToBottom(box: ScrollBox, threshold = 2): boolean {
  return box.scrollTop + box.clientHeight >= box.scrollHeight - threshold;
}

export type LoadMoreSelectProps = SelectProps & {
  /** Called when the dropdown list is scrolled to its bottom. */
  onLoadMore: () => void;
  /** No more pages: scrolling to the bottom does nothing. */
  exhausted?: boolean;
};

/** A select that asks for the next page when its dropdown is scrolled to the bottom. */
export function LoadMoreSelect({ onLoadMore, exhausted, onPopupScroll, ...props }: LoadMoreSelectProps) {
  const handleScroll = (event: UIEvent<HTMLDivElement>) => {
    onPopupScroll?.(event);
    if (!exhausted && isScrolledToBottom(event.currentTarget)) onLoadMore();
  };
  return <Select {...props} onPopupScroll={handleScroll} />;
}
