/** orval's custom fetch mutator (override.mutator): the base URL and headers a caller configures at run time. */
export const settings = { baseUrl: '', headers: {} as Record<string, string>, urls: [] as string[] };

export const customFetch = async <T>(url: string, options: RequestInit): Promise<T> => {
  settings.urls.push(settings.baseUrl + url);
  const res = await fetch(settings.baseUrl + url, {
    ...options,
    headers: { ...(options.headers as Record<string, string>), ...settings.headers },
  });
  const text = await res.text();
  return { status: res.status, data: text ? JSON.parse(text) : undefined, headers: res.headers } as T;
};
