import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render } from '@testing-library/react';
import { isScrolledToBottom, LoadMoreSelect } from './load-more-select';

const options = Array.from({ length: 30 }, (_, i) => ({ value: i, label: `Option ${i}` }));

function scrollPopup(box: { scrollTop: number; clientHeight: number; scrollHeight: number }) {
  const holder = document.querySelector('.ant-select-dropdown-list-holder');
  if (!(holder instanceof HTMLElement)) throw new Error('No dropdown list');
  Object.defineProperty(holder, 'clientHeight', { value: box.clientHeight, configurable: true });
  Object.defineProperty(holder, 'scrollHeight', { value: box.scrollHeight, configurable: true });
  holder.scrollTop = box.scrollTop;
  fireEvent.scroll(holder);
}

describe('load-more select', () => {
  it('knows when a list is scrolled to its bottom', () => {
    expect(isScrolledToBottom({ scrollTop: 0, clientHeight: 200, scrollHeight: 800 })).toBe(false);
    expect(isScrolledToBottom({ scrollTop: 599, clientHeight: 200, scrollHeight: 800 })).toBe(true);
    expect(isScrolledToBottom({ scrollTop: 600, clientHeight: 200, scrollHeight: 800 })).toBe(true);
    expect(isScrolledToBottom({ scrollTop: 500, clientHeight: 200, scrollHeight: 800 })).toBe(false);
  });

  it('asks for more when the dropdown reaches its bottom, not before', () => {
    const onLoadMore = vi.fn();
    render(
      <LoadMoreSelect
        open
        options={options}
        onLoadMore={onLoadMore}
        virtual={false}
        style={{ width: 200 }}
      />,
    );
    scrollPopup({ scrollTop: 10, clientHeight: 200, scrollHeight: 800 });
    expect(onLoadMore).not.toHaveBeenCalled();
    scrollPopup({ scrollTop: 600, clientHeight: 200, scrollHeight: 800 });
    expect(onLoadMore).toHaveBeenCalledTimes(1);
  });

  it('does nothing once exhausted', () => {
    const onLoadMore = vi.fn();
    render(<LoadMoreSelect open exhausted options={options} onLoadMore={onLoadMore} virtual={false} />);
    scrollPopup({ scrollTop: 600, clientHeight: 200, scrollHeight: 800 });
    expect(onLoadMore).not.toHaveBeenCalled();
  });
});
