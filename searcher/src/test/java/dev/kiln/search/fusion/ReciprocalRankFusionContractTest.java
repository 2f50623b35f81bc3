package dev.kiln.search.fusion;

/** The fusion contract for reciprocal rank fusion. */
class ReciprocalRankFusionContractTest extends FusionContract {
  @Override
  protected Fusion fusion() {
    return new ReciprocalRankFusion(60);
  }
}
