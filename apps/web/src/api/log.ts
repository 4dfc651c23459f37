import { api, type DataOf, type QueryOf } from '@ksp/contracts';
import { call } from './client';
import { download } from './download';

export type LogRow = DataOf<typeof api.log.list>['data'][number];
export type LogListQuery = QueryOf<typeof api.log.list>;
export type LogExportQuery = QueryOf<typeof api.log.export>;

export const logKeys = {
  all: ['log'] as const,
};

export const listLogs = (query: LogListQuery) => call(api.log.list, { query });
/** The records the filters select, as the file the server streams (CSV or JSON). */
export const exportLogs = (query: LogExportQuery) => download(api.log.export, query);
