import { describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { createQueryClient } from '../app/providers';
import { PagedSelect } from './paged-select';

interface Row {
  id: string;
  name: string;
}

const rows: Row[] = Array.from({ length: 45 }, (_, i) => ({ id: `id-${i}`, name: `key ${i}` }));

function fetchPage(page: number, pageSize: number, search: string) {
  const matching = rows.filter((row) => row.name.includes(search));
  return Promise.resolve({
    data: matching.slice((page - 1) * pageSize, page * pageSize),
    total: matching.length,
  });
}

function renderSelect(value: string[], resolve?: (ids: string[]) => Promise<Row[]>) {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <PagedSelect<Row>
        mode="multiple"
        value={value}
        queryKey={['test-rows']}
        fetchPage={fetchPage}
        resolve={resolve}
        toOption={(row) => ({ value: row.id, label: row.name })}
      />
    </QueryClientProvider>,
  );
}

describe('paged select', () => {
  it('shows a chosen value beyond the loaded page by its name, asking the server for it once', async () => {
    const resolve = vi.fn((ids: string[]) => Promise.resolve(rows.filter((row) => ids.includes(row.id))));
    renderSelect(['id-3', 'id-40'], resolve);
    await screen.findByText('key 40');
    expect(screen.getByText('key 3')).toBeTruthy();
    expect(screen.queryByText('id-40')).toBeNull();
    // Only the value the first page did not hold was asked for.
    await waitFor(() => expect(resolve).toHaveBeenCalledTimes(1));
    expect(resolve).toHaveBeenCalledWith(['id-40']);
  });

  it('without a way to resolve it, a value never loaded shows as it is', async () => {
    renderSelect(['id-40']);
    await screen.findByText('id-40');
  });
});
