"""Writes testdata/iceberg-java.puffin: the Puffin file of deletion vectors
that Spark 3.5 with Iceberg's Java library (the runtime jar of
scripts/sparkenv.sh, 1.10.1) writes for a merge-on-read DELETE on a
format 3 table of one data file whose row i holds id i, deleting

    id % 2 = 0 AND id < 70000   (a bitmap container, then an array one)
    id BETWEEN 80000 AND 90000  (runs)
    id = 199999                 (a lone position in the last container)

deletionvector's TestDecodeIcebergJava checks the same positions.
Run: .venv-spark/bin/python deletionvector/testdata/gen_spark.py .cache/spark-jars/iceberg-spark-runtime-3.5_2.12-1.10.1.jar
"""
import glob
import os
import shutil
import sys
import tempfile

from pyspark.sql import SparkSession

jar = sys.argv[1]
wh = tempfile.mkdtemp()
spark = (SparkSession.builder.master("local[1]").appName("dv-testdata")
         .config("spark.jars", jar)
         .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
         .config("spark.sql.catalog.cat", "org.apache.iceberg.spark.SparkCatalog")
         .config("spark.sql.catalog.cat.type", "hadoop")
         .config("spark.sql.catalog.cat.warehouse", "file://" + wh)
         .getOrCreate())
spark.sql("CREATE TABLE cat.db.t (id bigint) USING iceberg TBLPROPERTIES ("
          "'format-version'='3', 'write.delete.mode'='merge-on-read', 'write.distribution-mode'='none')")
spark.range(0, 200000).coalesce(1).sortWithinPartitions("id").writeTo("cat.db.t").append()
data = glob.glob(wh + "/db/t/data/*.parquet")
assert len(data) == 1, data
spark.sql("DELETE FROM cat.db.t WHERE (id % 2 = 0 AND id < 70000) OR id BETWEEN 80000 AND 90000 OR id = 199999")
puffins = glob.glob(wh + "/db/t/data/*.puffin")
assert len(puffins) == 1, puffins
shutil.copy(puffins[0], os.path.join(os.path.dirname(os.path.abspath(__file__)), "iceberg-java.puffin"))
print(spark.sql("SELECT count(*) FROM cat.db.t").collect())
spark.stop()
shutil.rmtree(wh)
