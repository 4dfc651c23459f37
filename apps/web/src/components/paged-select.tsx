import { useState, type ReactNode } from 'react';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import type { SelectProps } from 'antd';
import { LoadMoreSelect } from './load-more-select';

export interface PagedSelectOption {
  value: string;
  label: ReactNode;
}

export type PagedSelectProps<Row> = Omit<
  SelectProps,
  'options' | 'showSearch' | 'loading' | 'filterOption' | 'onSearch'
> & {
  /** Base query key; the page number and search text are appended. */
  queryKey: readonly unknown[];
  /** One page of rows matching `search` (server-side paging and filtering). */
  fetchPage: (page: number, pageSize: number, search: string) => Promise<{ data: Row[]; total: number }>;
  toOption: (row: Row) => PagedSelectOption;
  /** Rows left out of the options (e.g. those already chosen elsewhere). */
  exclude?: (row: Row) => boolean;
  pageSize?: number;
};

/**
 * A select over a server-paged list: typing searches on the server, scrolling the
 * dropdown to its bottom loads the next page (the load-more behaviour of docs/console.md#products-and-sub-consoles).
 */
export function PagedSelect<Row>({
  queryKey,
  fetchPage,
  toOption,
  exclude,
  pageSize = 20,
  ...props
}: PagedSelectProps<Row>) {
  const [search, setSearch] = useState('');
  const query = useInfiniteQuery({
    queryKey: [...queryKey, 'paged-select', search, pageSize],
    queryFn: ({ pageParam }) => fetchPage(pageParam, pageSize, search),
    initialPageParam: 1,
    getNextPageParam: (last, pages) =>
      pages.reduce((n, page) => n + page.data.length, 0) < last.total ? pages.length + 1 : undefined,
    placeholderData: keepPreviousData,
  });
  const rows = query.data?.pages.flatMap((page) => page.data) ?? [];
  const options = rows.filter((row) => !exclude?.(row)).map(toOption);
  return (
    <LoadMoreSelect
      {...props}
      options={options}
      loading={query.isFetching}
      showSearch={{ filterOption: false, onSearch: setSearch }}
      onLoadMore={() => {
        if (!query.isFetchingNextPage) void query.fetchNextPage();
      }}
      exhausted={!query.hasNextPage}
    />
  );
}
