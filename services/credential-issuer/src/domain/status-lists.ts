/** A credential's entry in a status list: the `status.status_list` claim's list and `idx`. */
export interface StatusEntry {
  listId: string;
  idx: number;
}
