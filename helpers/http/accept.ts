// What an Accept header admits (RFC 9110 §12.5.1), for the judging of answers and for the reference server's variants.

/** The media ranges an Accept header admits (a q above 0), lower-cased, in its order; a request without one admits anything. */
export function admittedRanges(accept: string): string[] {
  return accept.split(',').flatMap((range) => {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    return type !== '' && (q === undefined || Number(q.slice(2)) > 0) ? [type] : [];
  });
}

/** Whether an Accept header admits application/json: no header admits anything. */
export function admitsJson(accept: string | undefined): boolean {
  return accept === undefined || admittedRanges(accept).some((type) => ['application/json', 'application/*', '*/*'].includes(type));
}
