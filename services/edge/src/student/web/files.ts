/** The homework limits of the spec (too_many_files, file_too_large, answer_too_large). */
export const LIMITS = { files: 10, fileBytes: 10 * 1024 * 1024, batchBytes: 30 * 1024 * 1024 };

/** The types the homework service accepts (its ACCEPTED_TYPES; the service checks the content itself). */
export const ACCEPTED = ['pdf', 'png', 'jpg', 'jpeg', 'gif', 'webp', 'docx', 'xlsx', 'pptx', 'odt', 'txt', 'md', 'csv'];

/** A size in words. */
export function size(n: number): string {
  const MB = 1024 * 1024;
  return n >= MB ? `${(n / MB).toFixed(1)} МБ` : `${Math.max(1, Math.round(n / 1024))} КБ`;
}

/**
 * What the page refuses before sending, to spare uploading megabytes the service would refuse
 * anyway (the same limits, the service's words); the count and types are left to the service,
 * which knows the files already in the answer.
 */
export function tooBig(files: File[]): string | null {
  const big = files.find((f) => f.size > LIMITS.fileBytes);
  if (big) return `Файл ${big.name} больше 10 МБ`;
  if (files.reduce((n, f) => n + f.size, 0) > LIMITS.batchBytes) return 'За раз — не больше 30 МБ';
  return null;
}

/** A file's bytes in base64, as store_homework_file takes them. */
export function base64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}
