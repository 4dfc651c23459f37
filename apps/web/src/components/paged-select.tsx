import { useState, type ReactNode } from 'react';
import {
  keepPreviousData,
  useInfiniteQuery,
  useQuery,
  useQueryClient,
  type InfiniteData,
} from '@tanstack/react-query';
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
  /**
   * The rows of chosen values never loaded here (a form opened with values already set), so
   * that they show by name rather than as raw ids.
   */
  resolve?: (values: string[]) => Promise<Row[]>;
  pageSize?: number;
};

const chosenOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]).filter(
    (v): v is string => typeof v === 'string',
  );

/**
 * A select over a server-paged list: typing searches on the server, scrolling the
 * dropdown to its bottom loads the next page (the load-more behaviour of docs/console.md#products-and-sub-consoles). A chosen
 * value keeps its label when a later search no longer lists it.
 */
export function PagedSelect<Row>({
  queryKey,
  fetchPage,
  toOption,
  exclude,
  resolve,
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

  // Every option loaded for any search (the query cache keeps them), by value: a chosen one
  // stays named whatever the search lists now.
  const client = useQueryClient();
  const known = new Map<string, PagedSelectOption>();
  for (const [, data] of client.getQueriesData<InfiniteData<{ data: Row[] }>>({
    queryKey: [...queryKey, 'paged-select'],
  }))
    for (const page of data?.pages ?? [])
      for (const row of page.data) {
        const option = toOption(row);
        known.set(option.value, option);
      }
  const chosen = chosenOf(props.value);
  const unknown = chosen.filter((value) => !known.has(value)).sort();
  const resolved = useQuery({
    queryKey: [...queryKey, 'paged-select-chosen', unknown],
    queryFn: () => (resolve ? resolve(unknown) : Promise.resolve([])),
    // After the first page: what it holds needs no request of its own.
    enabled: resolve !== undefined && unknown.length > 0 && query.isSuccess,
    staleTime: Infinity,
  });
  for (const row of resolved.data ?? []) {
    const option = toOption(row);
    known.set(option.value, option);
  }
  const listed = new Set(options.map((option) => option.value));
  const kept = chosen.flatMap((value) => {
    const option = known.get(value);
    return option && !listed.has(value) ? [option] : [];
  });

  return (
    <LoadMoreSelect
      {...props}
      options={[...options, ...kept]}
      loading={query.isFetching}
      showSearch={{ filterOption: false, onSearch: setSearch }}
      onLoadMore={() => {
        if (!query.isFetchingNextPage) void query.fetchNextPage();
      }}
      exhausted={!query.hasNextPage}
    />
  );
}
